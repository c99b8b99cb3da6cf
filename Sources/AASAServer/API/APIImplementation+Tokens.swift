import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation

extension APIImplementation {
    func listTokens(_ input: Operations.ListTokens.Input) async throws -> Operations.ListTokens.Output {
        let principal = try principal()
        let tokens = try await reads(principal).tokens(team: input.path.team)
        return .ok(.init(body: .json(.init(items: tokens.map(Components.Schemas.Token.init)))))
    }

    func createToken(_ input: Operations.CreateToken.Input) async throws -> Operations.CreateToken.Output {
        let principal = try principal()
        let body =
            switch input.body {
            case .json(let body): body
            }
        let scopes = Set(body.scopes.compactMap { TokenScope(rawValue: $0.rawValue) })
        guard !scopes.isEmpty else {
            throw ServiceError.invalid(field: "/scopes", rule: "non-empty", "a token needs at least one scope")
        }
        let name = body.name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else {
            throw ServiceError.invalid(field: "/name", rule: "non-empty", "a token needs a name")
        }
        _ = try Names.displayName(name, field: "/name")
        if let expiry = body.expiresAt, expiry <= Date() {
            throw ServiceError.invalid(field: "/expiresAt", rule: "future", "the expiry must be in the future")
        }
        let (token, secret) = try await accounts(principal).createToken(
            team: input.path.team, tokenName: name, scopes: scopes,
            expiresAt: body.expiresAt)
        return .created(.init(body: .json(.init(token: .init(token), secret: secret))))
    }

    func revokeToken(_ input: Operations.RevokeToken.Input) async throws -> Operations.RevokeToken.Output {
        let principal = try principal()
        let id = try Names.uuid(input.path.tokenID, what: "token")
        try await accounts(principal).revokeToken(team: input.path.team, id: id)
        return .noContent(.init())
    }
}

extension APIImplementation {
    func whoami(_ input: Operations.Whoami.Input) async throws -> Operations.Whoami.Output {
        let principal = try principal()
        return .ok(
            .init(
                body: .json(
                    .init(
                        tokenID: principal.tokenID.uuidString.lowercased(), name: principal.tokenName,
                        team: principal.teamName,
                        scopes: principal.scopes.sorted().compactMap { Components.Schemas.Scope(rawValue: $0.rawValue) }
                    ))))
    }
}
