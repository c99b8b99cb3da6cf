import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// One kind of change to what domains serve (rules, app order, domain settings, grants, apps),
/// as its steps: `DomainChangePipeline` runs them in order, in one transaction. A handler builds
/// the change from its request and hands it over; it never touches SQL or the transaction.
package protocol DomainChange: Sendable {
    /// What `lock` found, handed to the later steps.
    associatedtype Locked: Sendable
    associatedtype Output: Sendable

    /// The audit action of the change, and the reason given when it auto-publishes.
    var action: String { get }

    /// Step 1, before any database work: whether this caller may make such a change at all
    /// (scopes, admin-only changes).
    func authorize(_ principal: Principal) throws

    /// Step 2: reads and locks (`FOR UPDATE`, domains in ID order) what the change touches. Whether
    /// the caller may see it at all (404) is decided here, with the rows in hand.
    func lock(_ session: DBSession, principal: Principal) async throws -> Locked

    /// Step 3: `If-Match` against the locked versions.
    func checkIfMatch(_ locked: Locked) throws

    /// Step 4: the writes. Returns what the handler answers with, the domains whose document may
    /// have changed (the pipeline renders and validates each), and the audit entries.
    func apply(_ locked: Locked, principal: Principal, session: DBSession) async throws -> Applied<Output>

    /// The request-body field a validation finding is about, if it came from this request.
    func field(for finding: Finding, output: Output) -> String?
}

extension DomainChange {
    package func authorize(_ principal: Principal) throws {}
    package func checkIfMatch(_ locked: Locked) throws {}
    package func field(for finding: Finding, output: Output) -> String? { nil }
}

/// What a change's `apply` step did.
package struct Applied<Output: Sendable>: Sendable {
    package var output: Output
    /// Domains whose document may have changed: each is rendered and validated before commit.
    package var domains: [Int64]
    package var audit: [AuditEntry]
    /// Hosts that stop being served when the change commits (a deleted domain).
    package var removedHosts: [String] = []
    /// Domains (primary hosts) whose served copy changes without a new revision (their aliases).
    package var refreshedHosts: [String] = []
    /// The teams whose rules the change wrote: the platform-agreement warnings (`A010`) are about
    /// them. Nil (a change to order, settings, grants or apps) compares every team.
    package var agreementTeams: Set<String>?
}

/// The answer of a change that committed: its output and each touched domain's validated document
/// (warnings included), in domain ID order.
package struct Changed<Output: Sendable>: Sendable {
    package var output: Output
    package var documents: [DomainDocument]

    package var warnings: [Finding] { documents.flatMap(\.warningFindings) }
}

extension DomainChange {
    /// Steps 1 to 4 and 7 inside a transaction someone else runs, for a writer made of changes (a
    /// manifest, an import, a promotion): authorize, lock, If-Match, apply, and append the change's
    /// audit as `actor`'s (an import's actions under `import.`), as the pipeline does for a change
    /// of its own. The writer then validates and runs the policies once for all.
    package func applyWithin(_ session: DBSession, principal: Principal, actor: Actor, auditPrefix: String = "")
        async throws -> Applied<Output>
    {
        try authorize(principal)
        let locked = try await lock(session, principal: principal)
        try checkIfMatch(locked)
        let applied = try await apply(locked, principal: principal, session: session)
        try await applied.appendAudit(by: actor, prefix: auditPrefix, session: session)
        try await PasskeyOrigins.announceChanges(session, actor: actor)
        return applied
    }
}

extension Applied {
    /// The one place a change's audit entries become rows: the pipeline's run and `applyWithin`.
    package func appendAudit(by actor: Actor, prefix: String = "", session: DBSession) async throws {
        for var entry in audit {
            entry.action = prefix + entry.action
            try await session.appendAudit(entry.record(by: actor))
        }
    }
}
