import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation

extension APIImplementation {
    func oidcTrust(_ principal: Principal) -> OIDCTrustService {
        OIDCTrustService(work: work, principal: principal, actor: actor(principal))
    }

    func listOIDCIssuers(_ input: Operations.ListOIDCIssuers.Input) async throws -> Operations.ListOIDCIssuers.Output {
        let issuers = try await oidcTrust(try principal()).issuers()
        return .ok(.init(body: .json(.init(items: issuers.map(Components.Schemas.OIDCIssuer.init)))))
    }

    func putOIDCIssuer(_ input: Operations.PutOIDCIssuer.Input) async throws -> Operations.PutOIDCIssuer.Output {
        let principal = try principal()
        let body =
            switch input.body {
            case .json(let body): body
            }
        let issuer = try await oidcTrust(principal).putIssuer(
            name: input.path.name, issuer: body.issuer, audience: body.audience, ifMatch: input.headers.ifMatch)
        return .ok(.init(headers: .init(eTag: ETag.of(issuer.version)), body: .json(.init(issuer))))
    }

    func deleteOIDCIssuer(_ input: Operations.DeleteOIDCIssuer.Input) async throws -> Operations.DeleteOIDCIssuer.Output
    {
        try await oidcTrust(try principal()).deleteIssuer(name: input.path.name, ifMatch: input.headers.ifMatch)
        return .noContent(.init())
    }

    func getTeamTrust(_ input: Operations.GetTeamTrust.Input) async throws -> Operations.GetTeamTrust.Output {
        let trust = try await oidcTrust(try principal()).trust(team: input.path.team)
        return .ok(.init(headers: .init(eTag: ETag.of(trust.version)), body: .json(.init(trust))))
    }

    func putTeamTrust(_ input: Operations.PutTeamTrust.Input) async throws -> Operations.PutTeamTrust.Output {
        let principal = try principal()
        let body =
            switch input.body {
            case .json(let body): body
            }
        let items = body.rules.map {
            TrustRuleInput.Item(
                issuer: $0.issuer, claims: $0.claims.additionalProperties, scopes: $0.scopes.map(\.rawValue))
        }
        let trust = try await oidcTrust(principal).setTrust(
            team: input.path.team, rules: items, ifMatch: input.headers.ifMatch)
        return .ok(.init(headers: .init(eTag: ETag.of(trust.version)), body: .json(.init(trust))))
    }

    func consoleMappings(_ principal: Principal) -> ConsoleMappingService {
        ConsoleMappingService(
            work: work, principal: principal, actor: actor(principal), providers: consoleProviders)
    }

    func getConsoleMappings(_ input: Operations.GetConsoleMappings.Input) async throws
        -> Operations.GetConsoleMappings.Output
    {
        let (mappings, version) = try await consoleMappings(try principal()).mappings()
        return .ok(.init(headers: .init(eTag: ETag.of(version)), body: .json(.init(mappings, version: version))))
    }

    func putConsoleMappings(_ input: Operations.PutConsoleMappings.Input) async throws
        -> Operations.PutConsoleMappings.Output
    {
        let body =
            switch input.body {
            case .json(let body): body
            }
        let items = body.mappings.map {
            ConsoleGroupMapping(provider: $0.provider, group: $0.group, team: $0.team, role: $0.role.rawValue)
        }
        let (mappings, version) = try await consoleMappings(try principal()).replace(
            items, ifMatch: input.headers.ifMatch)
        return .ok(.init(headers: .init(eTag: ETag.of(version)), body: .json(.init(mappings, version: version))))
    }

    /// No bearer: the ID token in the form is the credential.
    func exchangeOIDCToken(_ input: Operations.ExchangeOIDCToken.Input) async throws
        -> Operations.ExchangeOIDCToken.Output
    {
        let form =
            switch input.body {
            case .urlEncodedForm(let form): form
            }
        guard let oidc else { throw ServiceError.unavailable("this aasad exchanges no OIDC tokens") }
        let issued = try await TokenExchange(work: work, verifier: oidc, requestID: state.requestID).exchange(
            .init(
                grantType: form.grantType, subjectToken: form.subjectToken, subjectTokenType: form.subjectTokenType,
                audience: form.audience, scope: form.scope))
        return .ok(
            .init(
                body: .json(
                    .init(
                        accessToken: issued.token, issuedTokenType: TokenExchange.issuedType, tokenType: .bearer,
                        expiresIn: issued.expiresIn, scope: issued.scopes.map(\.rawValue).joined(separator: " "),
                        team: issued.team))))
    }
}

extension Components.Schemas.OIDCIssuer {
    init(_ r: OIDCIssuerRecord) {
        self.init(
            name: r.name, issuer: r.issuer, audience: r.audience, createdAt: r.createdAt, updatedAt: r.updatedAt,
            version: r.version)
    }
}

extension Components.Schemas.TeamTrust {
    init(_ r: TeamTrustRecord) {
        self.init(
            team: r.teamName,
            rules: r.rules.map {
                .init(
                    issuer: $0.issuer, claims: .init(additionalProperties: $0.claims),
                    scopes: $0.scopes.compactMap { .init(rawValue: $0.rawValue) })
            },
            version: r.version, updatedAt: r.updatedAt)
    }
}

extension Components.Schemas.ConsoleMappings {
    init(_ mappings: [ConsoleGroupMapping], version: Int64) {
        self.init(
            mappings: mappings.map {
                .init(
                    provider: $0.provider, group: $0.group, team: $0.team,
                    role: .init(rawValue: $0.role) ?? .read)
            }, version: version)
    }
}
