import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Logging

/// The kill switch: a team suspended on one domain (or on every domain, host `*`) has its apps
/// left out of that domain's file, and the file is published at once; resuming puts them back
/// and publishes. The team's stored rules, grants and expectations are untouched. Admins only.
///
/// Suspending is the 3 a.m. button, so it is never held up by a policy: its own changes pass as
/// an override whose reason is the suspension's (recorded, and listed by the next revision).
/// Resuming is an ordinary change: the team's rules must pass today's checks to come back.
package struct SuspensionChange: DomainChange {
    package enum Kind: Sendable {
        case suspend(reason: String)
        case resume
    }

    /// A host, or `*` for every domain.
    package let host: String
    package let team: String
    package let kind: Kind

    package var action: String {
        switch kind {
        case .suspend: "team.suspend"
        case .resume: "team.resume"
        }
    }

    package struct Locked: Sendable {
        package var team: TeamRecord
        /// Nil for `*`.
        package var domain: DomainRecord?
        /// The domains whose file changes.
        package var affected: [DomainRecord]
    }

    package struct Output: Sendable {
        package var suspension: SuspensionRecord?
        package var hosts: [String]
    }

    package func authorize(_ principal: Principal) throws {
        guard principal.isAdmin else {
            throw ServiceError.forbidden("suspending and resuming a team needs an admin token")
        }
    }

    package func lock(_ session: DBSession, principal: Principal) async throws -> Locked {
        let domain = host == "*" ? nil : try await Lookup.domain(host, session: session)
        guard let team = try await session.team(named: team, forUpdate: true) else {
            throw ServiceError.notFound("no team \(team)")
        }
        let ids = try await session.domainIDsOfTeam(teamID: team.id).filter { domain == nil || $0 == domain?.id }
        var affected: [DomainRecord] = []
        for id in ids {
            if let locked = try await session.domain(id: id, forUpdate: true) { affected.append(locked) }
        }
        return Locked(team: team, domain: domain, affected: affected)
    }

    package func apply(_ locked: Locked, principal: Principal, session: DBSession) async throws -> Applied<Output> {
        let scope = locked.domain?.host ?? "every domain"
        var suspension: SuspensionRecord?
        switch kind {
        case .suspend(let reason):
            guard
                try await session.insertSuspension(
                    teamID: locked.team.id, domainID: locked.domain?.id, reason: reason,
                    createdBy: principal.auditName)
            else {
                throw ServiceError.conflict(
                    "team \(locked.team.name) is already suspended on \(scope)", field: "team", rule: "suspended")
            }
            suspension = try await session.suspensions(affecting: locked.domain?.id)
                .first { $0.teamID == locked.team.id && $0.domainID == locked.domain?.id }
        case .resume:
            guard try await session.deleteSuspension(teamID: locked.team.id, domainID: locked.domain?.id) else {
                throw ServiceError.notFound("team \(locked.team.name) is not suspended on \(scope)")
            }
        }
        var after: JSONObject = ["team": .string(locked.team.name), "host": .string(host)]
        if case .suspend(let reason) = kind { after.append("reason", .string(reason)) }
        return Applied(
            output: Output(suspension: suspension, hosts: locked.affected.map(\.host)),
            domains: locked.affected.map(\.id),
            audit: [
                AuditEntry(
                    action: action, entityType: "suspension", entityID: "\(host)/\(locked.team.name)",
                    team: locked.team.name, domain: locked.domain?.host, after: .object(after))
            ])
    }
}

/// Suspending and resuming, each followed by publishing every domain whose file changed.
package struct SuspensionService: Sendable {
    package let pipeline: DomainChangePipeline
    package let principal: Principal
    package let actor: Actor
    package let logger: Logger

    package init(pipeline: DomainChangePipeline, principal: Principal, actor: Actor, logger: Logger) {
        self.pipeline = pipeline
        self.principal = principal
        self.actor = actor
        self.logger = logger
    }

    package struct Result: Sendable {
        package var suspension: SuspensionRecord?
        package var published: [Publisher.Outcome]
    }

    package func suspend(_ host: String, team: String, reason: String) async throws -> Result {
        var actor = actor
        // The kill switch is never held up by a policy; the override is recorded as such.
        if actor.override == nil { actor.override = PolicyOverride(reason: "suspension of team \(team): \(reason)") }
        return try await run(
            SuspensionChange(host: host, team: team, kind: .suspend(reason: reason)), actor: actor,
            publishReason: "team \(team) suspended: \(reason)")
    }

    package func resume(_ host: String, team: String) async throws -> Result {
        try await run(
            SuspensionChange(host: host, team: team, kind: .resume), actor: actor, publishReason: "team \(team) resumed"
        )
    }

    private func run(_ change: SuspensionChange, actor: Actor, publishReason: String) async throws -> Result {
        let changed = try await pipeline.run(change, principal: principal, actor: actor, logger: logger)
        var published: [Publisher.Outcome] = []
        for host in changed.output.hosts {
            published.append(
                try await pipeline.publisher.publish(
                    host: host, reason: publishReason, source: .draft, actor: actor, logger: logger))
        }
        return Result(suspension: changed.output.suspension, published: published)
    }
}
