import AASAModel
import AASAStore
import Foundation
import Logging
import Metrics
import NIOPosix
import ServiceLifecycle

/// Compares every web root with its domain's current revisions (the AASA's, and assetlinks.json's
/// when it has one) and rewrites what is missing or was edited by hand (logged, counted, audited). Runs at start-up and
/// every `interval`, which is
/// also how a failed target is retried; `aasad publish --all` runs it once.
struct Reconciler: Service {
    let database: Database
    let publisher: Publisher
    let logger: Logger
    var interval: Duration = .seconds(60)

    struct Report: Sendable {
        var checked = 0
        var rewritten: [String] = []
        var failed: [String] = []
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { _ = try await reconcileAll() } catch {
                    logger.warning("reconciliation failed", metadata: ["error": .string(String(describing: error))])
                }
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }

    func reconcileAll() async throws -> Report {
        var report = Report()
        let domains = try await database.read(logger: logger) { try await $0.listDomains() }
        for domain in domains where domain.currentRevision != nil && !domain.webRoots.isEmpty {
            report = try await publisher.withDomainLock(domainID: domain.id, logger: logger) { [report] session in
                var report = report
                // Read again under the lock: a publish may have finished meanwhile.
                guard let current = try await session.domain(id: domain.id) else { return report }
                var revisions: [(PublishedFile, RevisionRecord)] = []
                for file in PublishedFile.allCases {
                    if let revision = try await file.current(session, domain: current) {
                        revisions.append((file, revision))
                    }
                }
                for root in current.webRoots {
                    let legacy = current.legacyRootPath
                    let bases = publisher.webRootBases
                    _ = try await NIOThreadPool.singleton.runIfActive {
                        WebRootWriter.removeTemporaries(root: root, legacy: legacy, bases: bases)
                    }
                    for (file, revision) in revisions {
                        report = try await reconcile(
                            session, file: file, domain: current, root: root, revision: revision, report: report)
                    }
                }
                return report
            }
        }
        return report
    }

    /// One web root's copy of one file against the file's current revision: rewritten (logged,
    /// counted, audited) when missing or edited by hand.
    private func reconcile(
        _ session: DBSession, file: PublishedFile, domain: DomainRecord, root: String, revision: RevisionRecord,
        report: Report
    ) async throws -> Report {
        var report = report
        report.checked += 1
        let copies = try await NIOThreadPool.singleton.runIfActive { file.copiesOnDisk(root: root, domain: domain) }
        guard copies.contains(where: { $0 != revision.bytes }) else { return report }
        let state = copies[0] == nil ? "missing" : "different"
        logger.warning(
            "web root does not match the current revision; rewriting",
            metadata: [
                "host": .string(domain.host), "web_root": .string(root), "file": .string(file.name),
                "state": .string(state), "revision": .stringConvertible(revision.number),
            ])
        Counter(label: "aasad_reconcile_rewrites_total", dimensions: [("state", state)]).increment()
        var single = domain
        single.webRoots = [root]
        let ok = await publisher.writeTargets(session, file: file, domain: single, revision: revision)
            .allSatisfy(\.ok)
        let label = file == .aasa ? "\(domain.host) \(root)" : "\(domain.host) \(root) \(file.name)"
        if ok { report.rewritten.append(label) } else { report.failed.append(label) }
        let entity = file.reconcileEntity(root: root)
        try await session.appendAudit(
            AuditEntry(
                action: "publish.reconcile", entityType: "web-root", entityID: entity.id, domain: domain.host,
                before: .string(state),
                after: .object([entity.revisionKey: .number(String(revision.number)), "ok": .bool(ok)])
            ).record(by: Actor(tokenID: nil, name: "aasad reconcile", team: nil, requestID: nil)))
        return report
    }
}
