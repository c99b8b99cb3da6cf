import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
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
package struct Reconciler: Service {
    package let database: Database
    package let publisher: Publisher
    package let logger: Logger
    package var interval: Duration = .seconds(60)

    package init(database: Database, publisher: Publisher, logger: Logger, interval: Duration = .seconds(60)) {
        self.database = database
        self.publisher = publisher
        self.logger = logger
        self.interval = interval
    }

    package struct Report: Sendable {
        package var checked = 0
        package var rewritten: [String] = []
        package var failed: [String] = []
    }

    /// At start-up, then every `interval`.
    package func run() async throws {
        try await PeriodicService("reconciliation", every: interval, logger: logger) { _ = try await reconcileAll() }
            .run()
    }

    package func reconcileAll() async throws -> Report {
        var report = try await reconcileWebRoots()
        report = try await reconcileObjectTargets(report)
        return report
    }

    private func reconcileWebRoots() async throws -> Report {
        var report = Report()
        let domains = try await database.read(logger: logger) { try await $0.listDomains() }.filter {
            $0.currentRevision != nil && !$0.webRoots.isEmpty
        }
        let (suspects, cleanChecks) = try await suspects(domains)
        report.checked = cleanChecks
        for domain in suspects {
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

    /// The domains whose web roots may need work, found without a lock: both files' current
    /// revisions read in two statements (what this server serves), and every root compared with
    /// them on the thread pool. A domain whose every copy matches, with no temporary file left in
    /// a root, needs nothing; only the others take the domain's lock and are checked again there (a
    /// publish may be writing them meanwhile). Before this pass every domain took its lock and
    /// three queries, one after another: 81 s for 20,000 domains (`scripts/bench/scale`).
    /// Returns the suspects, and how many file copies the clean domains had checked.
    private func suspects(_ domains: [DomainRecord]) async throws -> (domains: [DomainRecord], checked: Int) {
        let (aasa, assetLinks, webauthn) = try await database.read(logger: logger) { session in
            (
                try await session.servedRevisions(), try await session.servedAssetLinks(),
                try await session.servedFiles(.webauthn)
            )
        }
        var byHost: [String: [(PublishedFile, [UInt8])]] = [:]
        for r in aasa { byHost[r.host, default: []].append((.aasa, r.bytes)) }
        for r in assetLinks { byHost[r.host, default: []].append((.assetLinks, r.bytes)) }
        for r in webauthn { byHost[r.host, default: []].append((.webauthn, r.bytes)) }
        let current = byHost
        let bases = publisher.webRootBases
        var suspects: [DomainRecord] = []
        var checked = 0
        // A few hundred domains per hop to the thread pool: file reads block.
        for start in stride(from: 0, to: domains.count, by: 256) {
            let chunk = Array(domains[start..<min(start + 256, domains.count)])
            let judged = try await NIOThreadPool.singleton.runIfActive {
                chunk.map { domain -> (clean: Bool, checks: Int) in
                    let files = current[domain.host] ?? []
                    let clean =
                        !files.isEmpty
                        && domain.webRoots.allSatisfy { root in
                            !WebRootWriter.hasTemporaries(root: root, legacy: domain.legacyRootPath, bases: bases)
                                && files.allSatisfy { file, bytes in
                                    file.copiesOnDisk(root: root, domain: domain).allSatisfy { $0 == bytes }
                                }
                        }
                    return (clean, domain.webRoots.count * files.count)
                }
            }
            for (domain, verdict) in zip(chunk, judged) {
                if verdict.clean { checked += verdict.checks } else { suspects.append(domain) }
            }
        }
        return (suspects, checked)
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

    /// Every bucket against its domain's current revisions (a HEAD per object), and every target
    /// whose last attempt failed: what was changed or deleted in the bucket, or never finished
    /// (a store down, a 500 partway), is written again under the domain's lock, then purged, and
    /// reported and audited as drift.
    private func reconcileObjectTargets(_ report: Report) async throws -> Report {
        var report = report
        guard let objects = publisher.objects else { return report }
        let domainIDs = try await database.read(logger: logger) { try await $0.domainsWithObjectTargets() }
        for domainID in domainIDs {
            report = try await publisher.withDomainLock(domainID: domainID, logger: logger) { [report] session in
                var report = report
                // The targets are read under the lock: a change may have replaced them meanwhile.
                guard let domain = try await session.domain(id: domainID) else { return report }
                var files: [ObjectPublishing.File] = []
                for file in PublishedFile.allCases {
                    if let revision = try await file.current(session, domain: domain) { files.append((file, revision)) }
                }
                guard !files.isEmpty else { return report }
                let specs = try await session.objectTargets(domainID: domainID).compactMap(TargetSpec.decode)
                let last = try await session.objectOutcomes(domainID: domainID)
                var drifted: [String: String] = [:]
                for spec in specs {
                    let name = spec.name ?? ""
                    report.checked += 1
                    let previous = last[name].flatMap { ObjectOutcome.decode($0.outcome) }
                    let behind =
                        previous.map { !$0.ok || ($0.revision != nil && $0.revision != files.first?.revision.number) }
                        ?? true
                    if spec.kind == .s3, let found = await objects.drift(spec, domain: domain, files: files) {
                        drifted[name] = found
                    } else if behind {
                        drifted[name] =
                            previous.map { "the last attempt failed: \($0.error ?? "unknown")" } ?? "never written"
                    }
                }
                guard !drifted.isEmpty else { return report }
                let rewrite = Set(specs.filter { $0.kind == .s3 && drifted[$0.name ?? ""] != nil }.compactMap(\.name))
                let outcomes = await publisher.writeObjectTargets(
                    session, domain: domain, files: files, webRootsOK: true, only: rewrite)
                for (name, found) in drifted.sorted(by: { $0.key < $1.key }) {
                    let ok = outcomes.first { $0.target == name }?.ok ?? false
                    logger.warning(
                        "a target does not match the current revision; rewriting",
                        metadata: ["host": .string(domain.host), "target": .string(name), "drift": .string(found)])
                    Counter(label: "aasad_reconcile_rewrites_total", dimensions: [("state", "object-drift")])
                        .increment()
                    if ok {
                        report.rewritten.append("\(domain.host) \(name)")
                    } else {
                        report.failed.append("\(domain.host) \(name)")
                    }
                    try await session.appendAudit(
                        AuditEntry(
                            action: "publish.reconcile", entityType: "object-target", entityID: name,
                            domain: domain.host, before: .string(found),
                            after: .object([
                                "revision": .number(String(files.first { $0.file == .aasa }?.revision.number ?? 0)),
                                "ok": .bool(ok),
                            ])
                        ).record(by: Actor(tokenID: nil, name: "aasad reconcile", team: nil, requestID: nil)))
                }
                return report
            }
        }
        return report
    }
}
