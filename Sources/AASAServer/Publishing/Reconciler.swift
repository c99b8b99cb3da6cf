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
                guard let current = try await session.domain(id: domain.id), let number = current.currentRevision,
                    let revision = try await session.revision(domainID: domain.id, number: number)
                else { return report }
                let android = try await session.currentAssetLinksRevision(domainID: domain.id)
                for root in current.webRoots {
                    if let android {
                        report = try await reconcileAssetLinks(
                            session, domain: current, root: root, revision: android, report: report)
                    }
                    report.checked += 1
                    let legacy = current.legacyRootPath
                    let bases = publisher.webRootBases
                    let onDisk = try await NIOThreadPool.singleton.runIfActive {
                        WebRootWriter.removeTemporaries(root: root, legacy: legacy, bases: bases)
                        return (
                            WebRootWriter.read(root: root),
                            legacy
                                ? FileManager.default.contents(atPath: root + "/" + WebRootWriter.fileName).map {
                                    [UInt8]($0)
                                } : revision.bytes
                        )
                    }
                    guard onDisk.0 != revision.bytes || onDisk.1 != revision.bytes else { continue }
                    let state = onDisk.0 == nil ? "missing" : "different"
                    logger.warning(
                        "web root does not match the current revision; rewriting",
                        metadata: [
                            "host": .string(current.host), "web_root": .string(root), "state": .string(state),
                            "revision": .stringConvertible(number),
                        ])
                    Counter(label: "aasad_reconcile_rewrites_total", dimensions: [("state", state)]).increment()
                    var single = current
                    single.webRoots = [root]
                    let outcome = await publisher.writeTargets(session, domain: single, revision: revision)
                    if outcome.allSatisfy(\.ok) {
                        report.rewritten.append("\(current.host) \(root)")
                    } else {
                        report.failed.append("\(current.host) \(root)")
                    }
                    try await session.appendAudit(
                        AuditEntry(
                            action: "publish.reconcile", entityType: "web-root", entityID: root, domain: current.host,
                            before: .string(state),
                            after: .object(["revision": .number(String(number)), "ok": .bool(outcome.allSatisfy(\.ok))])
                        ).record(by: Actor(tokenID: nil, name: "aasad reconcile", team: nil, requestID: nil)))
                }
                return report
            }
        }
        return report
    }

    /// One web root's assetlinks.json against the domain's current Android revision.
    private func reconcileAssetLinks(
        _ session: DBSession, domain: DomainRecord, root: String, revision: RevisionRecord,
        report: Report
    ) async throws -> Report {
        var report = report
        report.checked += 1
        let onDisk = try await NIOThreadPool.singleton.runIfActive {
            WebRootWriter.read(root: root, name: WebRootWriter.assetLinksName)
        }
        guard onDisk != revision.bytes else { return report }
        let state = onDisk == nil ? "missing" : "different"
        logger.warning(
            "web root's assetlinks.json does not match the current revision; rewriting",
            metadata: [
                "host": .string(domain.host), "web_root": .string(root), "state": .string(state),
                "revision": .stringConvertible(revision.number),
            ])
        Counter(label: "aasad_reconcile_rewrites_total", dimensions: [("state", state)]).increment()
        var single = domain
        single.webRoots = [root]
        let ok = await publisher.writeAssetLinksTargets(session, domain: single, revision: revision).allSatisfy(\.ok)
        if ok {
            report.rewritten.append("\(domain.host) \(root) assetlinks.json")
        } else {
            report.failed.append("\(domain.host) \(root) assetlinks.json")
        }
        try await session.appendAudit(
            AuditEntry(
                action: "publish.reconcile", entityType: "web-root", entityID: root + "/.well-known/assetlinks.json",
                domain: domain.host,
                before: .string(state),
                after: .object(["assetLinksRevision": .number(String(revision.number)), "ok": .bool(ok)])
            ).record(by: Actor(tokenID: nil, name: "aasad reconcile", team: nil, requestID: nil)))
        return report
    }
}

/// `aasad publish --all`: one reconciliation pass, for operators and deploy scripts.
public enum Reconciliation {
    public struct Summary: Sendable {
        public var checked: Int
        public var rewritten: [String]
        public var failed: [String]
    }

    /// - Parameter webRootBases: the directories web roots must lie in, as the server is configured
    ///   (empty: any); a root outside them is reported as a failed target and not written.
    public static func runOnce(database: Database, webRootBases: [String], logger: Logger) async throws -> Summary {
        let reconciler = Reconciler(
            database: database, publisher: Publisher(database: database, served: nil, webRootBases: webRootBases),
            logger: logger)
        let report = try await reconciler.reconcileAll()
        return Summary(checked: report.checked, rewritten: report.rewritten, failed: report.failed)
    }
}
