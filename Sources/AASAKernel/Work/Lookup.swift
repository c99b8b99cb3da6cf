import AASAModel
import AASAStore
import Foundation

/// Finding the rows a request names, with the visibility rule applied the same way everywhere:
/// what the caller may not see is 404, never 403 (its existence is not revealed).
package enum Lookup {
    package static func domain(_ host: String, session: DBSession, forUpdate: Bool = false) async throws -> DomainRecord
    {
        let normalized = try Names.pathHost(host)
        guard let domain = try await session.domain(host: normalized, forUpdate: forUpdate) else {
            throw ServiceError.notFound("no domain \(host)")
        }
        return domain
    }

    /// The app, if the principal may see it: admins, and tokens of the team that owns it.
    package static func visibleApp(_ appID: String, _ principal: Principal, session: DBSession, forUpdate: Bool = false)
        async throws -> AppRecord
    {
        guard let app = try await session.app(appID: appID, forUpdate: forUpdate), principal.canRead(team: app.teamID)
        else {
            throw ServiceError.notFound("no app \(appID)")
        }
        return app
    }

    /// "No team" said as what this token sees, whether or not the team exists (which is not
    /// revealed): "no team blog" alone read as if blog did not exist, to a team that knew it did.
    package static func noTeam(_ name: String, _ principal: Principal) -> String {
        guard !principal.isAdmin, let own = principal.teamName else { return "no team \(name)" }
        return "no team \(name) that this token sees: a team's token sees its own team (\(own)) only"
    }

    /// The team, if the principal may see it: admins, and the team's own tokens.
    package static func visibleTeam(_ name: String, _ principal: Principal, session: DBSession, forUpdate: Bool = false)
        async throws -> TeamRecord
    {
        guard let team = try await session.team(named: name, forUpdate: forUpdate), principal.canRead(team: team.id)
        else { throw ServiceError.notFound(Self.noTeam(name, principal)) }
        return team
    }
}

extension JSONPointer {
    /// The reference tokens of a pointer written as text (`/a/b~1c` → `a`, `b/c`).
    package static func tokens(of pointer: String) -> [String] {
        pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
    }
}
