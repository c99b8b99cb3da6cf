import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Crypto
import Foundation
import Logging
import Metrics
import NIOPosix
import PostgresNIO

/// Publishing one domain: render (or take an old revision's bytes), store an immutable revision
/// with its diff and audit event, tell the other replicas, then write every web root. Serialised
/// per domain across replicas by a session advisory lock held from before the transaction until
/// the last web root is written, so two publishes never interleave their writes.
package struct Publisher: Sendable {
    package let database: Database
    /// This process's served copy; nil in a process that serves nothing (`aasad publish --all`,
    /// benchmarks): the serving replicas learn of the revision through NOTIFY.
    package let served: WellKnownFiles?
    /// The organisation's domain policies, checked on the bytes about to become a revision (and,
    /// through the change pipeline, on every draft change).
    package let policies: DomainPolicies
    /// Where web roots must lie (`--web-root-base`), checked again on the real path at each write.
    package let webRootBases: [String]
    /// The object-store and purge targets' credentials and client (nil: this process has none, and
    /// a domain with such targets is reported failed there, never skipped in silence).
    package let objects: ObjectPublishing?
    /// How many publishes may be in flight per domain and per team on this replica.
    package let admission: PublishAdmission

    /// The one way a publisher is made, by the server and by `PublishingService` alike: the
    /// organisation's standard policies and the configured bases. `poolSize`: the database pool's
    /// size, which the bounds on publishes in flight are a share of.
    package init(
        database: Database, served: WellKnownFiles?, webRootBases: [String], objects: ObjectPublishing? = nil,
        poolSize: Int = 20
    ) {
        self.database = database
        self.served = served
        self.policies = .standard()
        self.webRootBases = webRootBases
        self.objects = objects
        self.admission = PublishAdmission(poolSize: poolSize)
    }

    package enum Source: Sendable {
        /// The draft: the AASA, assetlinks.json when the domain has (or had) something for Android, and
        /// `/.well-known/webauthn` when it has (or had) related origins.
        case draft
        /// Republish an old revision of one file as its newest, leaving the other file as it is.
        /// `team` is the acting team for a team token (it may then change only its own part of the
        /// file), nil for an admin or the system.
        case revision(PublishedFile, Int, team: String?)
        /// The draft after `write` brought a source domain's rules in (a promotion): each new
        /// revision records where in the source its file came from (a revision, or the draft).
        case promotion(
            aasa: PromotionSource, assetLinks: PromotionSource?,
            write: @Sendable (DBSession, DomainRecord) async throws -> Void)
    }

    package struct TargetOutcome: Sendable {
        package var webRoot: String
        package var ok: Bool
        package var error: String?
        package var paths: [String]
    }

    /// One file a publish settled: its current revision, whether this publish made it, and each web root's outcome.
    package struct FileOutcome: Sendable {
        package var file: PublishedFile
        package var revision: RevisionRecord
        package var created: Bool
        package var targets: [TargetOutcome]
    }

    package struct Outcome: Sendable {
        package var host: String
        /// The files settled, the one asked for first: the AASA for a publish of the draft (then
        /// assetlinks.json when the domain has one), the rolled-back file for a rollback.
        package var files: [FileOutcome]
        package var warnings: [Finding]
        /// Each object-store and purge target's outcome, with what the edge serves after it.
        package var objects: [ObjectOutcome] = []

        /// A dry run: what the publish would have stored, every step run and then rolled back.
        package var dryRun = false

        package var primary: FileOutcome { files[0] }
        package var assetLinks: FileOutcome? { files.first { $0.file == .assetLinks } }
    }

    /// What a dry run would have stored, as its outcome: nothing served, no web root written.
    private static func dryRunOutcome(
        _ domain: DomainRecord, stored: [(PublishedFile, RevisionRecord, Bool)], warnings: [Finding]
    ) -> Outcome {
        Outcome(
            host: domain.host,
            files: stored.map { FileOutcome(file: $0.0, revision: $0.1, created: $0.2, targets: []) },
            warnings: warnings, dryRun: true)
    }

    /// The steps of every publish and rollback, for either file: lock the domain (across replicas,
    /// then its row), authorize, take the bytes (the validated draft, or an old revision within
    /// today's bounds), run the domain policies, store each new revision with its audit event,
    /// commit; then serve and write every web root.
    /// - Parameter authorize: runs in the transaction with the locked domain; throws to refuse.
    /// - Parameter dryRun: run every step (authorization, validation, every policy, the revisions
    ///   with their diffs and audit) and roll the transaction back: nothing is stored, served,
    ///   announced or written to a web root, and the outcome says what would have been. The
    ///   console's publish preview, the promotion plan and `?dryRun=true` all ask this one path.
    package func publish(
        host: String, reason: String, source: Source, actor: Actor, logger: Logger, dryRun: Bool = false,
        authorize: @escaping @Sendable (DBSession, DomainRecord) async throws -> Void = { _, _ in }
    ) async throws -> Outcome {
        // Admitted before any connection is taken, so a refusal holds nothing.
        try await admission.admitted(host: host, team: actor.team) {
            // On the request's connection when there is one: a request never waits for a second lease.
            try await RequestWork(database: database, logger: logger).read { session in
                guard let domainID = try await session.domain(host: host)?.id else {
                    throw ServiceError.notFound("no domain \(host)")
                }
                return try await session.holding(.publishing(domainID: domainID)) {
                    try await publishLocked(
                        session, domainID: domainID, reason: reason, source: source, actor: actor, dryRun: dryRun,
                        authorize: authorize)
                }
            }
        }
    }

    /// Runs `body` on one connection holding the domain's publishing lock (a session advisory lock,
    /// released on the same connection before it goes back to the pool).
    package func withDomainLock<T: Sendable>(
        domainID: Int64, logger: Logger, _ body: @escaping @Sendable (DBSession) async throws -> T
    ) async throws -> T {
        try await database.withConnection { connection in
            let session = DBSession(connection: connection, logger: logger)
            return try await session.holding(.publishing(domainID: domainID)) { try await body(session) }
        }
    }

    /// A file's bytes about to become its newest revision.
    private struct NextRevision: Sendable {
        package var file: PublishedFile
        package var bytes: [UInt8]
        package var rollbackOf: Int?
        package var promotedFrom: PromotionSource? = nil
    }

    private func publishLocked(
        _ session: DBSession, domainID: Int64, reason: String, source: Source, actor: Actor, dryRun: Bool,
        authorize: @Sendable (DBSession, DomainRecord) async throws -> Void
    ) async throws -> Outcome {
        var warnings: [Finding] = []
        let (domain, stored) = try await transaction(
            session, domainID: domainID, reason: reason, source: source, actor: actor, dryRun: dryRun,
            warnings: &warnings, authorize: authorize)
        if dryRun { return Self.dryRunOutcome(domain, stored: stored, warnings: warnings) }
        return await finish(session, domain: domain, stored: stored, warnings: warnings)
    }

    /// After the commit: serve each stored revision on this replica and write every web root.
    private func finish(
        _ session: DBSession, domain: DomainRecord, stored: [(PublishedFile, RevisionRecord, Bool)],
        warnings: [Finding]
    ) async -> Outcome {
        var files: [FileOutcome] = []
        for (file, revision, created) in stored {
            Counter(label: "aasad_publishes_total", dimensions: [("created", "\(created)"), ("file", file.name)])
                .increment()
            served.map(file.served)?.update(
                ServedRevision(
                    host: domain.host, aliases: domain.aliases, number: revision.number,
                    bytes: revision.bytes, sha256: revision.sha256))
            files.append(
                FileOutcome(
                    file: file, revision: revision, created: created,
                    targets: await writeTargets(session, file: file, domain: domain, revision: revision)))
        }
        let objects = await writeObjectTargets(
            session, domain: domain, files: files.map { ($0.file, $0.revision) },
            webRootsOK: files.allSatisfy { $0.targets.allSatisfy(\.ok) })
        return Outcome(host: domain.host, files: files, warnings: warnings, objects: objects)
    }

    /// The domain's object-store and purge targets, after its web roots (`ObjectPublishing`).
    package func writeObjectTargets(
        _ session: DBSession, domain: DomainRecord, files: [ObjectPublishing.File], webRootsOK: Bool,
        only: Set<String>? = nil
    ) async -> [ObjectOutcome] {
        let specs: [TargetSpec]
        do {
            specs = try await session.objectTargets(domainID: domain.id).compactMap(TargetSpec.decode)
        } catch {
            session.logger.error("the domain's targets could not be read", metadata: ["host": .string(domain.host)])
            return []
        }
        guard !specs.isEmpty, !files.isEmpty else { return [] }
        guard let objects else {
            return specs.map {
                var outcome = ObjectOutcome(target: $0.name ?? "", kind: $0.kind.rawValue, ok: false)
                outcome.error = "this aasad process has no object-store configuration"
                return outcome
            }
        }
        return await objects.publish(
            session, domain: domain, files: files, specs: specs, webRootsOK: webRootsOK, only: only)
    }

    /// One publish of several domains, all or nothing (a promotion's targets): every domain's
    /// publishing lock (in ID order, so two such publishes never deadlock), then one transaction
    /// doing each domain's publish in turn; a refusal or error at any of them rolls every one back.
    /// After the commit each domain is served and its web roots written, as a single publish does.
    /// - Parameter dryRun: every domain's publish run and rolled back together, as `publish`'s
    ///   dry run (a promotion's plan): nothing is stored, served or written.
    package func publishAll(
        _ items: [(host: String, reason: String, source: Source)], actor: Actor, logger: Logger, dryRun: Bool = false
    ) async throws -> [Outcome] {
        try await admittedAll(items.map(\.host), team: actor.team) {
            try await publishAllAdmitted(items, actor: actor, logger: logger, dryRun: dryRun)
        }
    }

    /// Admitted for every host (each once) before any connection is taken.
    private func admittedAll<T: Sendable>(
        _ hosts: [String], team: String?, _ body: () async throws -> T
    ) async throws -> T {
        var remaining = Array(Set(hosts)).sorted()
        guard let host = remaining.popLast() else { return try await body() }
        return try await admission.admitted(host: host, team: team) {
            try await admittedAll(remaining, team: nil, body)
        }
    }

    private func publishAllAdmitted(
        _ items: [(host: String, reason: String, source: Source)], actor: Actor, logger: Logger, dryRun: Bool
    ) async throws -> [Outcome] {
        try await RequestWork(database: database, logger: logger).read { session in
            var ids: [(Int64, Int)] = []
            for (k, item) in items.enumerated() {
                guard let id = try await session.domain(host: item.host)?.id else {
                    throw ServiceError.notFound("no domain \(item.host)")
                }
                ids.append((id, k))
            }
            return try await holdingAll(ids.map(\.0).sorted(), session: session) {
                // In the order given: a target's write may read what an earlier one wrote.
                var prepared: [(DomainRecord, [(PublishedFile, RevisionRecord, Bool)], [Finding])] = []
                try await session.inTransaction(rollingBack: dryRun) {
                    for (id, k) in ids {
                        var found: [Finding] = []
                        let (domain, stored) = try await prepare(
                            session, domainID: id, reason: items[k].reason, source: items[k].source, actor: actor,
                            warnings: &found, authorize: { _, _ in })
                        prepared.append((domain, stored, found))
                    }
                }
                if dryRun { return prepared.map { Self.dryRunOutcome($0.0, stored: $0.1, warnings: $0.2) } }
                var outcomes: [Outcome] = []
                for (domain, stored, found) in prepared {
                    outcomes.append(await finish(session, domain: domain, stored: stored, warnings: found))
                }
                return outcomes
            }
        }
    }

    /// Runs `body` holding every domain's publishing lock, taken in the order given.
    private func holdingAll<T>(
        _ domainIDs: [Int64], session: DBSession, _ body: () async throws -> T
    ) async throws -> T {
        guard let first = domainIDs.first else { return try await body() }
        return try await session.holding(.publishing(domainID: first)) {
            try await holdingAll(Array(domainIDs.dropFirst()), session: session, body)
        }
    }

    /// The publish's one transaction: committed, or (a dry run) rolled back.
    private func transaction(
        _ session: DBSession, domainID: Int64, reason: String, source: Source, actor: Actor, dryRun: Bool,
        warnings: inout [Finding], authorize: @Sendable (DBSession, DomainRecord) async throws -> Void
    ) async throws -> (DomainRecord, [(PublishedFile, RevisionRecord, Bool)]) {
        var found: [Finding] = []
        defer { warnings = found }
        return try await session.inTransaction(rollingBack: dryRun) {
            try await prepare(
                session, domainID: domainID, reason: reason, source: source, actor: actor, warnings: &found,
                authorize: authorize)
        }
    }

    /// Everything a publish does inside its transaction, in the caller's transaction: lock the
    /// domain's row, authorize, take the bytes, run the policies, store each new revision.
    private func prepare(
        _ session: DBSession, domainID: Int64, reason: String, source: Source, actor: Actor,
        warnings found: inout [Finding], authorize: @Sendable (DBSession, DomainRecord) async throws -> Void
    ) async throws -> (DomainRecord, [(PublishedFile, RevisionRecord, Bool)]) {
        guard let domain = try await session.domain(id: domainID, forUpdate: true) else {
            throw ServiceError.notFound("the domain was deleted")
        }
        try await authorize(session, domain)
        let candidate: PolicyCandidate
        var next: [NextRevision]
        switch source {
        case .draft, .promotion:
            var promotedFrom: (aasa: PromotionSource?, assetLinks: PromotionSource?) = (nil, nil)
            if case .promotion(let aasa, let assetLinks, let write) = source {
                try await write(session, domain)
                promotedFrom = (aasa, assetLinks)
            }
            let draft = try await Judge(policies: policies).document(session, domain: domain)
            found = draft.warningFindings
            candidate = PolicyCandidate(
                stage: .publish(rollbackOf: nil), action: PublishedFile.aasa.action(rollback: false),
                domain: domain, document: draft, bytes: draft.bytes, actor: actor)
            next = [NextRevision(file: .aasa, bytes: draft.bytes, promotedFrom: promotedFrom.aasa)]
            // A domain with nothing for Android gets no assetlinks.json until it has something;
            // one that had a file gets `[]` when its last Android app leaves.
            let hadAssetLinks = try await PublishedFile.assetLinks.current(session, domain: domain) != nil
            if !draft.android.isEmpty || hadAssetLinks {
                next.append(
                    NextRevision(
                        file: .assetLinks, bytes: draft.android.bytes, promotedFrom: promotedFrom.assetLinks))
            }
            // Likewise `/.well-known/webauthn`: from the first related origin on, `{"origins": []}` after the last.
            let origins = try await session.relatedOrigins(domainID: domain.id).map(\.origin)
            found += try await RelyingPartyReport.publishWarnings(
                draft, domain: domain, listed: origins, session: session)
            let hadWebauthn = try await PublishedFile.webauthn.current(session, domain: domain) != nil
            if !origins.isEmpty || hadWebauthn {
                next.append(NextRevision(file: .webauthn, bytes: RelatedOrigins.render(origins)))
            }
        case .revision(let file, let number, let team):
            guard let old = try await file.revision(session, domainID: domainID, number: number) else {
                throw ServiceError.notFound("\(domain.host) has no \(file.revisionName(number))")
            }
            try await file.checkRollback(
                session, domain: domain, old: old, current: try await file.current(session, domain: domain),
                team: team)
            candidate = try await file.rollbackCandidate(session, domain: domain, old: old, actor: actor)
            next = [NextRevision(file: file, bytes: old.bytes, rollbackOf: number)]
        }
        try await policies.check(candidate, session: session)
        var stored: [(PublishedFile, RevisionRecord, Bool)] = []
        for revision in next {
            let (record, created) = try await store(
                session, revision, domain: domain, reason: reason, actor: actor)
            stored.append((revision.file, record, created))
        }
        return (domain, stored)
    }

    /// Stores the bytes as the file's newest revision, with its diff, the admin overrides since the
    /// last one and its audit event, and tells the other replicas; the current revision as it is
    /// when the bytes are already current.
    private func store(
        _ session: DBSession, _ next: NextRevision, domain: DomainRecord, reason: String, actor: Actor
    ) async throws -> (RevisionRecord, created: Bool) {
        let file = next.file
        let current = try await file.current(session, domain: domain)
        let sha = Hex.sha256(next.bytes)
        if let current, current.sha256 == sha { return (current, false) }
        var record = RevisionRecord(
            domainID: domain.id, number: (current?.number ?? 0) + 1, bytes: next.bytes, sha256: sha,
            byteCount: next.bytes.count, actorToken: actor.tokenID, actorName: actor.name, reason: reason,
            createdAt: Date(), diff: current.flatMap { file.diff(from: $0.bytes, to: next.bytes, host: domain.host) },
            rollbackOf: next.rollbackOf,
            overrides: file == .aasa
                ? .array(try await session.overrides(domain: domain.host, since: current?.createdAt)) : .array([]))
        record.promotedFrom = next.promotedFrom
        try await file.insert(session, record)
        try await session.appendAudit(
            AuditEntry(
                action: file.action(rollback: next.rollbackOf != nil), entityType: file.entityType,
                // The acting team's, so a team sees its own publishes in its audit trail.
                entityID: "\(domain.host)/\(record.number)", team: actor.team, domain: domain.host,
                before: current.map { .number(String($0.number)) },
                after: .object([
                    "number": .number(String(record.number)), "sha256": .string(record.sha256),
                    "reason": .string(record.reason),
                    "rollbackOf": record.rollbackOf.map { .number(String($0)) } ?? .null,
                ])
            ).record(by: actor))
        try await session.notifyRevision(host: domain.host)
        return (record, true)
    }

    /// Writes the file into every web root of the domain; one failing does not stop the others, and
    /// each failure is logged and counted. The AASA's outcomes are recorded per web root
    /// (`publish_targets`).
    package func writeTargets(_ session: DBSession, file: PublishedFile, domain: DomainRecord, revision: RevisionRecord)
        async
        -> [TargetOutcome]
    {
        let bytes = revision.bytes
        let bases = webRootBases
        var outcomes: [TargetOutcome] = []
        for root in domain.webRoots {
            var outcome = TargetOutcome(webRoot: root, ok: true, error: nil, paths: [])
            do {
                // File I/O with fsync blocks: keep it off the concurrency pool's threads.
                outcome.paths = try await NIOThreadPool.singleton.runIfActive {
                    try file.write(bytes, root: root, domain: domain, bases: bases)
                }
            } catch {
                outcome.ok = false
                outcome.error = String(describing: error)
                session.logger.error(
                    "publishing to a web root failed",
                    metadata: [
                        "host": .string(domain.host), "web_root": .string(root), "file": .string(file.name),
                        "error": .string(String(describing: error)),
                    ])
                Counter(label: "aasad_publish_target_failures_total").increment()
                // No change to commit with: the event is its own (autocommitted) write.
                try? await session.emitWebhookEvent(
                    WebhookEvent(
                        name: "publish.target-failed", domain: domain.host, team: nil, actor: "aasad",
                        text: "\(file.name) revision \(revision.number) of \(domain.host) could not be written to "
                            + "web root \(root)",
                        data: .object([
                            "webRoot": .string(root), "revision": .number(String(revision.number)),
                            "file": .string(file.name), "error": .string(outcome.error ?? ""),
                        ])))
            }
            if file == .aasa {
                try? await session.recordTarget(
                    domainID: domain.id, webRoot: root, revision: revision.number, ok: outcome.ok,
                    error: outcome.error)
            }
            outcomes.append(outcome)
        }
        return outcomes
    }
}
