import AASAAPI
import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation

extension APIImplementation {
    func listTeams(_ input: Operations.ListTeams.Input) async throws -> Operations.ListTeams.Output {
        let principal = try principal()
        let after = try PageCursor.key(
            .teams, cursor: input.query.cursor, deprecated: input.query.deprecatedAfter, name: "after")
        let page = try await reads(principal).teams(try PageRequest(after: after, limit: input.query.limit))
        return .ok(
            .init(
                body: .json(
                    .init(
                        items: page.items.map(Components.Schemas.Team.init),
                        nextCursor: page.next.map { PageCursor.encode(.teams, $0) }, nextAfter: page.next))))
    }

    func createTeam(_ input: Operations.CreateTeam.Input) async throws -> Operations.CreateTeam.Output {
        let principal = try principal()
        try requireAdmin(principal)
        let body =
            switch input.body {
            case .json(let body): body
            }
        if let problem = Names.teamProblem(body.name) {
            throw ServiceError.invalid(field: "/name", rule: "team-name", problem)
        }
        let displayName = try Names.displayName(body.displayName ?? body.name, field: "/displayName")
        let team = try await accounts(principal).createTeam(name: body.name, displayName: displayName)
        return .created(.init(headers: .init(eTag: ETag.of(team.version)), body: .json(.init(team))))
    }

    /// The team by name, if the principal may see it (other teams are not found, not forbidden).
    func getTeam(_ input: Operations.GetTeam.Input) async throws -> Operations.GetTeam.Output {
        let principal = try principal()
        let team = try await reads(principal).team(input.path.team)
        return .ok(.init(headers: .init(eTag: ETag.of(team.version)), body: .json(.init(team))))
    }

    func updateTeam(_ input: Operations.UpdateTeam.Input) async throws -> Operations.UpdateTeam.Output {
        let principal = try principal()
        let body =
            switch input.body {
            case .json(let body): body
            }
        if let name = body.displayName { _ = try Names.displayName(name, field: "/displayName") }
        let claims = try body.appleTeamIDs.map(AppleTeamIDs.normalized)
        let team = try await accounts(principal).updateTeam(
            input.path.team, displayName: body.displayName, appleTeamIDs: claims,
            ifMatch: input.headers.ifMatch)
        return .ok(.init(headers: .init(eTag: ETag.of(team.version)), body: .json(.init(team))))
    }

    func deleteTeam(_ input: Operations.DeleteTeam.Input) async throws -> Operations.DeleteTeam.Output {
        _ = try await change(TeamDeletion(team: input.path.team, ifMatch: input.headers.ifMatch))
        return .noContent(.init())
    }
}
