import AASAAPI
import AASAModel
import AASAStore
import Foundation

extension APIImplementation {
    func listTeamApps(_ input: Operations.ListTeamApps.Input) async throws -> Operations.ListTeamApps.Output {
        let principal = try principal()
        let apps = try await read { session in
            let team = try await visibleTeam(input.path.team, principal, session: session)
            return try await session.listApps(teamID: team.id)
        }
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
        let principal = try principal()
        guard case .json(let body) = input.body else { throw APIProblem.badRequest("expected application/json") }
        if let problem = AppID.problem(body.appID) {
            throw APIProblem.invalid(field: "/appID", rule: "app-id", problem)
        }
        let services = try Self.services(body.services, field: "/services")
        let app = try await write { session in
            let team = try await visibleTeam(input.path.team, principal, session: session)
            guard principal.canWrite else { throw APIProblem.forbidden("a read token cannot register apps") }
            let app: AppRecord
            do { app = try await session.insertApp(appID: body.appID, teamID: team.id, services: services) }
            catch StoreError.duplicate {
                throw APIProblem.conflict("the app ID \(body.appID) is already registered", field: "/appID", rule: "unique")
            }
            // A new app of a granted team may join a domain's service lists.
            try await recheckDomains(session, ids: try await session.domainIDsGranted(teamID: team.id))
            try await audit(session, principal, action: "app.create", entityType: "app", entityID: app.appID,
                            team: team.name, appID: app.appID, after: AuditJSON.app(app))
            return app
        }
        return .created(.init(headers: .init(eTag: ETag.of(app.version)), body: .json(.init(app))))
    }

    /// The app, if the principal may see it: admins, and tokens of the team that owns it.
    func visibleApp(_ appID: String, _ principal: Principal, session: DBSession, forUpdate: Bool = false) async throws -> AppRecord {
        guard let app = try await session.app(appID: appID, forUpdate: forUpdate), principal.canRead(team: app.teamID) else {
            throw APIProblem.notFound("no app \(appID)")
        }
        return app
    }

    func getApp(_ input: Operations.GetApp.Input) async throws -> Operations.GetApp.Output {
        let principal = try principal()
        let app = try await read { try await visibleApp(input.path.appID, principal, session: $0) }
        return .ok(.init(headers: .init(eTag: ETag.of(app.version)), body: .json(.init(app))))
    }

    func updateApp(_ input: Operations.UpdateApp.Input) async throws -> Operations.UpdateApp.Output {
        let principal = try principal()
        guard case .json(let body) = input.body else { throw APIProblem.badRequest("expected application/json") }
        let app = try await write { session in
            let before = try await visibleApp(input.path.appID, principal, session: session, forUpdate: true)
            guard principal.canWrite else { throw APIProblem.forbidden("a read token cannot change apps") }
            try ETag.check(input.headers.ifMatch, version: before.version)
            var teamID = before.teamID
            if let newTeam = body.team, newTeam != before.teamName {
                try requireAdmin(principal)
                guard let team = try await session.team(named: newTeam) else {
                    throw APIProblem.invalid(field: "/team", rule: "exists", "there is no team \(newTeam)")
                }
                teamID = team.id
            }
            let services = body.services == nil ? before.services : try Self.services(body.services, field: "/services")
            let ruleDomains = try await session.domainIDsWithRules(appPK: before.id)
            if !services.contains(.applinks) {
                for id in ruleDomains {
                    let domain = try await session.domain(id: id)
                    let set = try await session.ruleSet(domainID: id, app: before)
                    if !set.rules.isEmpty {
                        throw APIProblem.invalid(field: "/services", rule: "applinks-in-use",
                            "the app has rules on \(domain?.host ?? "a domain"); remove them before turning applinks off")
                    }
                }
            }
            try await session.updateApp(id: before.id, teamID: teamID, services: services)
            let after = try await session.app(appID: before.appID)!
            let granted = try await session.domainIDsGranted(teamID: teamID) + session.domainIDsGranted(teamID: before.teamID)
            try await recheckDomains(session, ids: ruleDomains + granted)
            try await audit(session, principal, action: "app.update", entityType: "app", entityID: after.appID,
                            team: after.teamName, appID: after.appID, before: AuditJSON.app(before), after: AuditJSON.app(after))
            return after
        }
        return .ok(.init(headers: .init(eTag: ETag.of(app.version)), body: .json(.init(app))))
    }

    func deleteApp(_ input: Operations.DeleteApp.Input) async throws -> Operations.DeleteApp.Output {
        let principal = try principal()
        try await write { session in
            let app = try await visibleApp(input.path.appID, principal, session: session, forUpdate: true)
            guard principal.canWrite else { throw APIProblem.forbidden("a read token cannot delete apps") }
            try ETag.check(input.headers.ifMatch, version: app.version)
            let domains = try await session.domainIDsWithRules(appPK: app.id) + session.domainIDsGranted(teamID: app.teamID)
            try await session.deleteApp(id: app.id)
            try await recheckDomains(session, ids: domains)
            try await audit(session, principal, action: "app.delete", entityType: "app", entityID: app.appID,
                            team: app.teamName, appID: app.appID, before: AuditJSON.app(app))
        }
        return .noContent(.init())
    }

    /// Locks and re-validates each domain (in ID order, so concurrent changes never deadlock).
    func recheckDomains(_ session: DBSession, ids: [Int64]) async throws {
        for id in Set(ids).sorted() {
            guard let domain = try await session.domain(id: id, forUpdate: true) else { continue }
            _ = try await DomainGate.check(session, domain: domain)
        }
    }
}
