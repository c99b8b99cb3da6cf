import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation

extension APIImplementation {
    func listGrants(_ input: Operations.ListGrants.Input) async throws -> Operations.ListGrants.Output {
        let grants = try await reads(try principal()).grants(input.path.host)
        return .ok(.init(body: .json(.init(items: grants.map(Components.Schemas.Grant.init)))))
    }

    func listTeamGrants(_ input: Operations.ListTeamGrants.Input) async throws -> Operations.ListTeamGrants.Output {
        let grants = try await reads(try principal()).grants(team: input.path.team)
        return .ok(.init(body: .json(.init(items: grants.map(Components.Schemas.Grant.init)))))
    }

    func getGrant(_ input: Operations.GetGrant.Input) async throws -> Operations.GetGrant.Output {
        let grant = try await reads(try principal()).grant(input.path.host, team: input.path.team)
        return .ok(.init(headers: .init(eTag: ETag.of(grant.version)), body: .json(.init(grant))))
    }

    func putGrant(_ input: Operations.PutGrant.Input) async throws -> Operations.PutGrant.Output {
        let principal = try principal()
        try requireAdmin(principal)
        let body =
            switch input.body {
            case .json(let body): body
            }
        guard !body.pathPrefixes.isEmpty else {
            throw ServiceError.invalid(
                field: "/pathPrefixes", rule: "non-empty", "a grant needs at least one path prefix")
        }
        let prefixes = try body.pathPrefixes.enumerated().map { i, prefix in
            do { return try PathGrant.normalized(prefix) } catch {
                throw ServiceError.invalid(field: "/pathPrefixes/\(i)", rule: "path-prefix", "\(prefix): \(error)")
            }
        }
        guard Set(prefixes).count == prefixes.count else {
            throw ServiceError.invalid(field: "/pathPrefixes", rule: "unique", "a prefix is listed twice")
        }
        let services = (body.services ?? []).compactMap { AppService(rawValue: $0.rawValue) }
        guard Set(services).count == services.count else {
            throw ServiceError.invalid(field: "/services", rule: "unique", "a service is listed twice")
        }
        let changed = try await change(
            GrantChange(
                host: input.path.host, team: input.path.team,
                kind: .put(prefixes, services: AppService.allCases.filter(services.contains)),
                ifMatch: input.headers.ifMatch))
        guard let grant = changed.output else { throw ServiceError.notFound("no grant") }
        return .ok(.init(headers: .init(eTag: ETag.of(grant.version)), body: .json(.init(grant))))
    }

    func deleteGrant(_ input: Operations.DeleteGrant.Input) async throws -> Operations.DeleteGrant.Output {
        _ = try await change(
            GrantChange(host: input.path.host, team: input.path.team, kind: .delete, ifMatch: input.headers.ifMatch))
        return .noContent(.init())
    }
}
