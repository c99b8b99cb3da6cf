import AASAKernel
import AASAOutbound
import AASARules
import AASAStore

/// A team deleted (admin only, once it owns no app). Its grants go with it, so the domains whose
/// service lists it was on are validated again.
package struct TeamDeletion: DomainChange {
    package let team: String
    package let ifMatch: String?

    package init(team: String, ifMatch: String?) {
        self.team = team
        self.ifMatch = ifMatch
    }
    package var action: String { "team.delete" }

    package func lock(_ session: DBSession, principal: Principal) async throws -> TeamRecord {
        let team = try await Lookup.visibleTeam(team, principal, session: session, forUpdate: true)
        guard principal.isAdmin else { throw ServiceError.forbidden("this needs an admin token") }
        return team
    }

    package func checkIfMatch(_ team: TeamRecord) throws {
        try ETag.check(ifMatch, version: team.version)
    }

    package func apply(_ team: TeamRecord, principal: Principal, session: DBSession) async throws -> Applied<Void> {
        let apps = try await session.countApps(teamID: team.id)
        guard apps == 0 else {
            throw ServiceError.conflict(
                "the team still owns \(apps) app(s); delete or move them first", field: "team", rule: "in-use")
        }
        let domains = try await session.domainIDsGranted(teamID: team.id)
        try await session.deleteTeam(id: team.id)
        return Applied(
            output: (), domains: domains,
            audit: [
                AuditEntry(
                    action: action, entityType: "team", entityID: team.name, team: team.name,
                    before: AuditJSON.team(team))
            ])
    }
}
