import AASAAPI
import AASAModel
import AASAStore
import Foundation

extension APIImplementation {
    func listTeamApps(_ input: Operations.ListTeamApps.Input) async throws -> Operations.ListTeamApps.Output {
        let principal = try principal()
        let apps = try await reads(principal).apps(team: input.path.team)
        return .ok(.init(body: .json(.init(items: apps.map(Components.Schemas.App.init)))))
    }

    static func services(_ list: [Components.Schemas.Service]?, field: String) throws -> [AppService] {
        let services = (list ?? [.applinks]).compactMap { AppService(rawValue: $0.rawValue) }
        guard Set(services).count == services.count else {
            throw APIProblem.invalid(field: field, rule: "unique", "a service is listed twice")
        }
        return AppService.allCases.filter(services.contains)
    }

    func createApp(_ input: Operations.CreateApp.Input) async throws -> Operations.CreateApp.Output {
        _ = try principal()  // 401 before the body is read
        guard case .json(let body) = input.body else { throw APIProblem.badRequest("expected application/json") }
        if let problem = AppID.problem(body.appID) {
            throw APIProblem.invalid(field: "/appID", rule: "app-id", problem)
        }
        let services = try Self.services(body.services, field: "/services")
        let changed = try await change(AppChange(kind: .create(team: input.path.team, appID: body.appID, services: services), ifMatch: nil))
        return .created(.init(headers: .init(eTag: ETag.of(changed.output.version)), body: .json(.init(changed.output))))
    }

    func getApp(_ input: Operations.GetApp.Input) async throws -> Operations.GetApp.Output {
        let principal = try principal()
        let app = try await reads(principal).app(input.path.appID)
        return .ok(.init(headers: .init(eTag: ETag.of(app.version)), body: .json(.init(app))))
    }

    func updateApp(_ input: Operations.UpdateApp.Input) async throws -> Operations.UpdateApp.Output {
        guard case .json(let body) = input.body else { throw APIProblem.badRequest("expected application/json") }
        let services = try body.services.map { try Self.services($0, field: "/services") }
        let changed = try await change(AppChange(kind: .update(appID: input.path.appID, team: body.team, services: services),
                                                 ifMatch: input.headers.ifMatch))
        return .ok(.init(headers: .init(eTag: ETag.of(changed.output.version)), body: .json(.init(changed.output))))
    }

    func deleteApp(_ input: Operations.DeleteApp.Input) async throws -> Operations.DeleteApp.Output {
        _ = try await change(AppChange(kind: .delete(appID: input.path.appID), ifMatch: input.headers.ifMatch))
        return .noContent(.init())
    }
}

extension APIImplementation {
    func getEntitlements(_ input: Operations.GetEntitlements.Input) async throws -> Operations.GetEntitlements.Output {
        let (app, hosts) = try await reads(try principal()).entitlementHosts(input.path.appID)
        let mode = input.query.mode.flatMap { AssociatedDomains.Mode(rawValue: $0.rawValue) }
        let entries = AssociatedDomains.entries(hosts, mode: mode)
        return .ok(.init(body: .json(.init(appID: app.appID, mode: input.query.mode.flatMap { .init(rawValue: $0.rawValue) },
                                           associatedDomains: entries, plist: AssociatedDomains.plist(entries)))))
    }
}
