import AASAModel
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
struct Publisher: Sendable {
    let database: Database
    /// This process's served copy; nil in a process that serves nothing (`aasad publish --all`,
    /// benchmarks): the serving replicas learn of the revision through NOTIFY.
    let served: WellKnownFiles?
    /// The organisation's domain policies, checked on the bytes about to become a revision.
    var policies = DomainPolicies()
    /// Where web roots must lie (`--web-root-base`), checked again on the real path at each write.
    var webRootBases: [String] = []

    enum Source: Sendable {
        case draft
        /// Republish an old revision's bytes. `team` is the acting team for a team token (it may
        /// then change only its own part of the file), nil for an admin or the system.
        case revision(Int, team: String?)
    }

    struct TargetOutcome: Sendable {
        var webRoot: String
        var ok: Bool
        var error: String?
        var paths: [String]
    }

    struct Outcome: Sendable {
        var host: String
        var revision: RevisionRecord
        var created: Bool
        var targets: [TargetOutcome]
        var warnings: [Finding]
        /// The domain's assetlinks.json, published from the same draft (nil when the domain has
        /// nothing for Android and never had, or for an AASA rollback, which leaves it alone).
        var assetLinks: AssetLinksOutcome?
    }

    struct AssetLinksOutcome: Sendable {
        var revision: RevisionRecord
        var created: Bool
        var targets: [TargetOutcome]
    }

    /// - Parameter authorize: runs in the transaction with the locked domain; throws to refuse.
    func publish(
        host: String, reason: String, source: Source, actor: Actor, logger: Logger,
        authorize: @escaping @Sendable (DBSession, DomainRecord) async throws -> Void = { _, _ in }
    ) async throws -> Outcome {
        // On the request's connection when there is one: a request never waits for a second lease.
        try await RequestWork(database: database, logger: logger).read { session in
            guard let domainID = try await session.domain(host: host)?.id else {
                throw APIProblem.notFound("no domain \(host)")
            }
            return try await session.holding(.publishing(domainID: domainID)) {
                try await publishLocked(
                    session, domainID: domainID, reason: reason, source: source, actor: actor, authorize: authorize)
            }
        }
    }

    /// Runs `body` on one connection holding the domain's publishing lock (a session advisory lock,
    /// released on the same connection before it goes back to the pool).
    func withDomainLock<T: Sendable>(
        domainID: Int64, logger: Logger, _ body: @escaping @Sendable (DBSession) async throws -> T
    ) async throws -> T {
        try await database.withConnection { connection in
            let session = DBSession(connection: connection, logger: logger)
            return try await session.holding(.publishing(domainID: domainID)) { try await body(session) }
        }
    }

    private func publishLocked(
        _ session: DBSession, domainID: Int64, reason: String, source: Source, actor: Actor,
        authorize: @Sendable (DBSession, DomainRecord) async throws -> Void
    ) async throws -> Outcome {
        var warnings: [Finding] = []
        var android: (revision: RevisionRecord, created: Bool)?
        let (domain, revision, created) = try await session.inTransaction {
            () -> (DomainRecord, RevisionRecord, Bool) in
            guard let locked = try await session.domain(id: domainID, forUpdate: true) else {
                throw APIProblem.notFound("the domain was deleted")
            }
            let domain = locked
            try await authorize(session, domain)
            let bytes: [UInt8]
            var rollbackOf: Int?
            var rendered: DomainDocument?
            switch source {
            case .draft:
                let draft = try await DomainGate.check(session, domain: domain)
                warnings = draft.warningFindings
                bytes = draft.bytes
                rendered = draft
                android = try await storeAssetLinks(
                    session, domain: domain, document: draft.android, reason: reason, actor: actor)
            case .revision(let number, _):
                guard let old = try await session.revision(domainID: domainID, number: number) else {
                    throw APIProblem.notFound("\(domain.host) has no revision \(number)")
                }
                bytes = old.bytes
                rollbackOf = number
            }
            let current = try await session.currentRevision(of: domain)
            if case .revision(let number, let team) = source {
                try await checkRollback(
                    session, domain: domain, number: number, bytes: bytes, current: current, team: team)
            }
            try await policies.check(
                PolicyCandidate(
                    stage: .publish(rollbackOf: rollbackOf),
                    action: rollbackOf == nil ? "domain.publish" : "domain.rollback",
                    domain: domain, document: rendered, bytes: bytes, actor: actor), session: session)
            let sha = Hex.sha256(bytes)
            if let current, current.sha256 == sha { return (domain, current, false) }
            do {
                let diff = current.flatMap { old in
                    (try? AASADocument(json: old.bytes)).flatMap { before in
                        (try? AASADocument(json: bytes)).map {
                            DocumentDiff(from: before, to: $0, host: domain.host).jsonValue
                        }
                    }
                }
                let record = RevisionRecord(
                    domainID: domainID, number: (current?.number ?? 0) + 1, bytes: bytes, sha256: sha,
                    byteCount: bytes.count, actorToken: actor.tokenID, actorName: actor.name,
                    reason: reason, createdAt: Date(), diff: diff, rollbackOf: rollbackOf,
                    overrides: .array(try await session.overrides(domain: domain.host, since: current?.createdAt)))
                try await session.insertRevision(record)
                try await session.appendAudit(
                    Self.revisionEvent(
                        rollbackOf == nil ? "domain.publish" : "domain.rollback", entityType: "revision",
                        domain: domain, record: record, current: current
                    ).record(by: actor))
                try await session.notifyRevision(host: domain.host)
                return (domain, record, true)
            }
        }
        Counter(label: "aasad_publishes_total", dimensions: [("created", "\(created)")]).increment()
        served?.aasa.update(
            ServedRevision(
                host: domain.host, aliases: domain.aliases, number: revision.number,
                bytes: revision.bytes, sha256: revision.sha256))
        let targets = await writeTargets(session, domain: domain, revision: revision)
        var androidOutcome: AssetLinksOutcome?
        if let android {
            androidOutcome = await serveAssetLinks(
                session, domain: domain, revision: android.revision, created: android.created)
        }
        return Outcome(
            host: domain.host, revision: revision, created: created, targets: targets, warnings: warnings,
            assetLinks: androidOutcome)
    }

    /// Stores the draft's assetlinks.json as the domain's next Android revision when it differs
    /// from the current one. A domain with nothing for Android gets no file until it has something;
    /// one that had a file gets `[]` when its last Android app leaves.
    private func storeAssetLinks(
        _ session: DBSession, domain: DomainRecord, document: AndroidDocument, reason: String,
        actor: Actor
    ) async throws -> (revision: RevisionRecord, created: Bool)? {
        let current = try await session.currentAssetLinksRevision(domainID: domain.id)
        if document.isEmpty && current == nil { return nil }
        return try await storeAssetLinks(
            session, domain: domain, bytes: document.bytes, current: current, rollbackOf: nil,
            reason: reason, actor: actor)
    }

    private func storeAssetLinks(
        _ session: DBSession, domain: DomainRecord, bytes: [UInt8], current: RevisionRecord?, rollbackOf: Int?,
        reason: String, actor: Actor
    ) async throws -> (revision: RevisionRecord, created: Bool) {
        let sha = Hex.sha256(bytes)
        if let current, current.sha256 == sha { return (current, false) }
        let record = RevisionRecord(
            domainID: domain.id, number: (current?.number ?? 0) + 1, bytes: bytes, sha256: sha, byteCount: bytes.count,
            actorToken: actor.tokenID, actorName: actor.name, reason: reason, createdAt: Date(), diff: nil,
            rollbackOf: rollbackOf)
        try await session.insertAssetLinksRevision(record)
        try await session.appendAudit(
            Self.revisionEvent(
                rollbackOf == nil ? "assetlinks.publish" : "assetlinks.rollback",
                entityType: "assetlinks-revision", domain: domain, record: record,
                current: current
            ).record(by: actor))
        try await session.notifyRevision(host: domain.host)
        return (record, true)
    }

    /// The audit event of a new revision of either file: its number, digest, reason and what it rolled back.
    private static func revisionEvent(
        _ action: String, entityType: String, domain: DomainRecord, record: RevisionRecord,
        current: RevisionRecord?
    ) -> AuditEntry {
        AuditEntry(
            action: action, entityType: entityType, entityID: "\(domain.host)/\(record.number)", domain: domain.host,
            before: current.map { .number(String($0.number)) },
            after: .object([
                "number": .number(String(record.number)), "sha256": .string(record.sha256),
                "reason": .string(record.reason),
                "rollbackOf": record.rollbackOf.map { .number(String($0)) } ?? .null,
            ]))
    }

    /// After commit: this replica serves the Android revision, and every web root gets it.
    private func serveAssetLinks(_ session: DBSession, domain: DomainRecord, revision: RevisionRecord, created: Bool)
        async -> AssetLinksOutcome
    {
        served?.assetLinks.update(
            ServedRevision(
                host: domain.host, aliases: domain.aliases, number: revision.number,
                bytes: revision.bytes, sha256: revision.sha256))
        return AssetLinksOutcome(
            revision: revision, created: created,
            targets: await writeAssetLinksTargets(session, domain: domain, revision: revision))
    }

    /// Writes an assetlinks.json revision into every web root of the domain.
    func writeAssetLinksTargets(_ session: DBSession, domain: DomainRecord, revision: RevisionRecord) async
        -> [TargetOutcome]
    {
        let bytes = revision.bytes
        let bases = webRootBases
        return await writeEachRoot(session, domain: domain, file: WebRootWriter.assetLinksName) { root in
            [try WebRootWriter.writeAssetLinks(bytes, root: root, bases: bases)]
        }
    }

    /// Republishes an old assetlinks.json revision as the newest, leaving the AASA alone. Refused
    /// (422) when a package in it is no longer an Android app of a team holding a grant on the
    /// domain, or when it is not a valid file; for a team (`team`, nil for an admin) also (403)
    /// when it would change another team's statements.
    func rollbackAssetLinks(
        host: String, number: Int, team: String?, reason: String, actor: Actor, logger: Logger,
        authorize: @escaping @Sendable (DBSession, DomainRecord) async throws -> Void
    ) async throws -> AssetLinksOutcome {
        try await RequestWork(database: database, logger: logger).read { session in
            guard let domainID = try await session.domain(host: host)?.id else {
                throw APIProblem.notFound("no domain \(host)")
            }
            return try await session.holding(.publishing(domainID: domainID)) {
                let (domain, stored) = try await session.inTransaction {
                    () -> (DomainRecord, (revision: RevisionRecord, created: Bool)) in
                    guard let domain = try await session.domain(id: domainID, forUpdate: true) else {
                        throw APIProblem.notFound("the domain was deleted")
                    }
                    try await authorize(session, domain)
                    guard let old = try await session.assetLinksRevision(domainID: domainID, number: number) else {
                        throw APIProblem.notFound("\(domain.host) has no assetlinks.json revision \(number)")
                    }
                    try await AssetLinksRollbackBounds.check(
                        old.bytes, number: number, domain: domain, session: session)
                    let current = try await session.currentAssetLinksRevision(domainID: domainID)
                    if let team {
                        try await AssetLinksRollbackBounds.checkOwnPart(
                            old: old.bytes, current: current?.bytes ?? [], number: number,
                            team: team, session: session)
                    }
                    // The domain's policies judge the old file as an AASA rollback's are judged: the
                    // golden URLs and protected paths of today, on the AASA as it is and this file.
                    try await policies.check(
                        PolicyCandidate(
                            stage: .publish(rollbackOf: number), action: "assetlinks.rollback", domain: domain,
                            document: nil, bytes: try await session.currentRevision(of: domain)?.bytes ?? [],
                            actor: actor, assetLinks: old.bytes),
                        session: session)
                    return (
                        domain,
                        try await storeAssetLinks(
                            session, domain: domain, bytes: old.bytes, current: current, rollbackOf: number,
                            reason: reason, actor: actor)
                    )
                }
                return await serveAssetLinks(
                    session, domain: domain, revision: stored.revision, created: stored.created)
            }
        }
    }

    /// Refuses a rollback that today's grants, apps or the acting team's reach do not allow
    /// (`RollbackBounds`), naming every part that is out of bounds.
    private func checkRollback(
        _ session: DBSession, domain: DomainRecord, number: Int, bytes: [UInt8],
        current: RevisionRecord?, team: String?
    ) async throws {
        let old = try AASADocument(json: bytes)
        let currentDocument = try current.map { try AASADocument(json: $0.bytes) }
        var apps: [String: RollbackBounds.AppToday] = [:]
        let ids = RollbackBounds.appIDs(in: old).union(currentDocument.map(RollbackBounds.appIDs) ?? [])
        // A suspended team is out of the file until resumed: a rollback cannot bring it back.
        let suspended = Set(try await session.suspensions(affecting: domain.id).map(\.teamID))
        for appID in ids.sorted() {
            guard let app = try await session.app(appID: appID) else { continue }
            let grant =
                suspended.contains(app.teamID) ? nil : try await session.grant(domainID: domain.id, teamID: app.teamID)
            apps[appID] = .init(app: app, grantPrefixes: grant?.pathPrefixes)
        }
        var errors = RollbackBounds.violations(old, apps: apps)
        for d in AASAValidator.validate(
            old, servedByteCount: bytes.count, options: .init(analyzeRules: false, host: domain.host))
        where d.severity == .error {
            errors.append(FieldError(field: d.path.description, rule: d.code.rawValue, message: d.message))
        }
        guard errors.isEmpty else {
            throw APIProblem.invalid(
                errors,
                detail: "revision \(number) of \(domain.host) cannot be published under today's grants and apps: "
                    + errors.map { "\($0.field): \($0.message)" }.joined(separator: "; "))
        }
        if let team {
            let changed = RollbackBounds.otherTeamsChanged(
                old: old, current: currentDocument, team: team,
                teamOf: apps.mapValues(\.app.teamName))
            guard changed.isEmpty else {
                throw APIProblem.forbidden(
                    "rolling back to revision \(number) would change the rules of team "
                        + "\(changed.joined(separator: ", ")); "
                        + "a team rolls back only its own part of the file, an admin may roll back all of it")
            }
        }
    }

    /// Writes every web root; one failing does not stop the others. Outcomes are recorded.
    func writeTargets(_ session: DBSession, domain: DomainRecord, revision: RevisionRecord) async -> [TargetOutcome] {
        let bytes = revision.bytes
        let legacy = domain.legacyRootPath
        let bases = webRootBases
        let outcomes = await writeEachRoot(session, domain: domain, file: WebRootWriter.fileName) { root in
            try WebRootWriter.write(bytes, root: root, legacy: legacy, bases: bases)
        }
        for outcome in outcomes {
            try? await session.recordTarget(
                domainID: domain.id, webRoot: outcome.webRoot, revision: revision.number,
                ok: outcome.ok, error: outcome.error)
        }
        return outcomes
    }

    /// Runs `write` for each web root of the domain (it returns the paths written); one failing
    /// does not stop the others, and each failure is logged and counted.
    private func writeEachRoot(
        _ session: DBSession, domain: DomainRecord, file: String,
        _ write: @escaping @Sendable (String) throws -> [String]
    ) async -> [TargetOutcome] {
        var outcomes: [TargetOutcome] = []
        for root in domain.webRoots {
            var outcome = TargetOutcome(webRoot: root, ok: true, error: nil, paths: [])
            do {
                // File I/O with fsync blocks: keep it off the concurrency pool's threads.
                outcome.paths = try await NIOThreadPool.singleton.runIfActive { try write(root) }
            } catch {
                outcome.ok = false
                outcome.error = String(describing: error)
                session.logger.error(
                    "publishing to a web root failed",
                    metadata: [
                        "host": .string(domain.host), "web_root": .string(root), "file": .string(file),
                        "error": .string(String(describing: error)),
                    ])
                Counter(label: "aasad_publish_target_failures_total").increment()
            }
            outcomes.append(outcome)
        }
        return outcomes
    }
}
