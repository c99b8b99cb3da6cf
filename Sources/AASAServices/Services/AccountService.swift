import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// Teams and tokens: writes that change no domain's document, each in one transaction with its
/// audit event. Who may: admins create and change teams; a team's write tokens (and admins)
/// create and revoke its tokens, and only an admin gives or takes the admin scope.
package struct AccountService: Sendable {
    package let work: RequestWork
    package let principal: Principal
    package let actor: Actor

    package init(work: RequestWork, principal: Principal, actor: Actor) {
        self.work = work
        self.principal = principal
        self.actor = actor
    }

    package func createTeam(name: String, displayName: String) async throws -> TeamRecord {
        guard principal.isAdmin else { throw ServiceError.forbidden("this needs an admin token") }
        return try await work.transaction { session in
            let team: TeamRecord
            do { team = try await session.insertTeam(name: name, displayName: displayName) } catch StoreError.duplicate
            { throw ServiceError.conflict("a team named \(name) exists", field: "/name", rule: "unique") }
            try await session.appendAudit(
                AuditEntry(
                    action: "team.create", entityType: "team", entityID: team.name,
                    team: team.name, after: AuditJSON.team(team)
                ).record(by: actor))
            return team
        }
    }

    /// - Parameter appleTeamIDs: already normalized (`AppleTeamIDs.normalized`); nil leaves them.
    package func updateTeam(_ name: String, displayName: String?, appleTeamIDs: [String]?, ifMatch: String?)
        async throws
        -> TeamRecord
    {
        try await work.transaction { session in
            let before = try await Lookup.visibleTeam(name, principal, session: session, forUpdate: true)
            guard principal.isAdmin else { throw ServiceError.forbidden("this needs an admin token") }
            try ETag.check(ifMatch, version: before.version)
            if let appleTeamIDs { try await AppleTeamIDs.checkClaim(appleTeamIDs, by: before, session: session) }
            let after = try await session.updateTeam(
                id: before.id, displayName: displayName ?? before.displayName,
                appleTeamIDs: appleTeamIDs ?? before.appleTeamIDs)
            try await session.appendAudit(
                AuditEntry(
                    action: "team.update", entityType: "team", entityID: after.name, team: after.name,
                    before: AuditJSON.team(before), after: AuditJSON.team(after)
                ).record(by: actor))
            return after
        }
    }

    package func createToken(team name: String, tokenName: String, scopes: Set<TokenScope>, expiresAt: Date?)
        async throws -> (
            token: TokenRecord, secret: String
        )
    {
        try await work.transaction { session in
            let team = try await Lookup.visibleTeam(name, principal, session: session)
            guard principal.canWrite else { throw ServiceError.forbidden("a read token cannot create tokens") }
            if scopes.contains(.admin) && !principal.isAdmin {
                throw ServiceError.forbidden("only an admin can give the admin scope")
            }
            // Tokens a team token makes descend from it; an admin token's answer to the organisation.
            return try await TokenIssuer.issue(
                session, team: team, name: tokenName, scopes: scopes.sorted(), expiresAt: expiresAt,
                parent: principal.isAdmin ? nil : principal, by: actor)
        }
    }

    package func revokeToken(team name: String, id: UUID) async throws {
        try await work.transaction { session in
            let team = try await Lookup.visibleTeam(name, principal, session: session)
            guard let token = try await session.token(id: id), token.teamID == team.id else {
                throw ServiceError.notFound("no token \(id.uuidString.lowercased()) in team \(team.name)")
            }
            guard principal.canWrite else { throw ServiceError.forbidden("a read token cannot revoke tokens") }
            if token.scopes.contains(.admin) && !principal.isAdmin {
                throw ServiceError.forbidden("only an admin can revoke an admin token")
            }
            let descendants = try await session.revokeToken(id: id)
            try await session.appendAudit(
                AuditEntry(
                    action: "token.revoke", entityType: "token", entityID: id.uuidString.lowercased(),
                    team: team.name, before: AuditJSON.token(token),
                    after: .object(["revokedDescendants": .number(String(descendants))])
                ).record(by: actor))
        }
    }
}
