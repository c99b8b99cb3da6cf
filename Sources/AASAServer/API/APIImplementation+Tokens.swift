import AASAAPI
import AASAModel
import AASAStore
import Foundation

extension APIImplementation {
    func listTokens(_ input: Operations.ListTokens.Input) async throws -> Operations.ListTokens.Output {
        let principal = try principal()
        let tokens = try await read { session in
            let team = try await Lookup.visibleTeam(input.path.team, principal, session: session)
            return try await session.listTokens(teamID: team.id)
        }
        return .ok(.init(body: .json(.init(items: tokens.map(Components.Schemas.Token.init)))))
    }

    func createToken(_ input: Operations.CreateToken.Input) async throws -> Operations.CreateToken.Output {
        let principal = try principal()
        guard case .json(let body) = input.body else { throw APIProblem.badRequest("expected application/json") }
        let scopes = Set(body.scopes.compactMap { TokenScope(rawValue: $0.rawValue) })
        guard !scopes.isEmpty else { throw APIProblem.invalid(field: "/scopes", rule: "non-empty", "a token needs at least one scope") }
        let name = body.name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { throw APIProblem.invalid(field: "/name", rule: "non-empty", "a token needs a name") }
        _ = try Names.displayName(name, field: "/name")
        if let expiry = body.expiresAt, expiry <= Date() {
            throw APIProblem.invalid(field: "/expiresAt", rule: "future", "the expiry must be in the future")
        }
        let (token, secret) = try await write { session in
            let team = try await Lookup.visibleTeam(input.path.team, principal, session: session)
            guard principal.canWrite else { throw APIProblem.forbidden("a read token cannot create tokens") }
            if scopes.contains(.admin) && !principal.isAdmin {
                throw APIProblem.forbidden("only an admin can give the admin scope")
            }
            // Tokens a team token makes descend from it; an admin token's answer to the organisation.
            return try await TokenIssuer.issue(session, team: team, name: name, scopes: scopes.sorted(), expiresAt: body.expiresAt,
                                               parent: principal.isAdmin ? nil : principal, by: Actor(principal, requestID: state.requestID))
        }
        return .created(.init(body: .json(.init(token: .init(token), secret: secret))))
    }

    func revokeToken(_ input: Operations.RevokeToken.Input) async throws -> Operations.RevokeToken.Output {
        let principal = try principal()
        let id = try Names.uuid(input.path.tokenID, what: "token")
        try await write { session in
            let team = try await Lookup.visibleTeam(input.path.team, principal, session: session)
            guard let token = try await session.token(id: id), token.teamID == team.id else {
                throw APIProblem.notFound("no token \(input.path.tokenID) in team \(team.name)")
            }
            guard principal.canWrite else { throw APIProblem.forbidden("a read token cannot revoke tokens") }
            if token.scopes.contains(.admin) && !principal.isAdmin {
                throw APIProblem.forbidden("only an admin can revoke an admin token")
            }
            let descendants = try await session.revokeToken(id: id)
            try await audit(session, principal, action: "token.revoke", entityType: "token",
                            entityID: id.uuidString.lowercased(), team: team.name, before: AuditJSON.token(token),
                            after: .object(["revokedDescendants": .number(String(descendants))]))
        }
        return .noContent(.init())
    }
}

extension APIImplementation {
    func whoami(_ input: Operations.Whoami.Input) async throws -> Operations.Whoami.Output {
        let principal = try principal()
        return .ok(.init(body: .json(.init(
            tokenID: principal.tokenID.uuidString.lowercased(), name: principal.tokenName, team: principal.teamName,
            scopes: principal.scopes.sorted().compactMap { Components.Schemas.Scope(rawValue: $0.rawValue) }))))
    }
}
