import AASAModel
import AASAStore

/// An app registered, changed (services, or moved to another team by an admin) or deleted. Apps
/// reach domains through their rules and, for the other services, through their team's grants:
/// every such domain is validated again.
struct AppChange: DomainChange {
    enum Kind: Sendable {
        case create(team: String, appID: String, services: [AppService], android: [String]?)
        case update(appID: String, team: String?, services: [AppService]?, fingerprints: [String]?)
        case delete(appID: String)
    }

    let kind: Kind
    let ifMatch: String?
    var action: String {
        switch kind {
        case .create: "app.create"
        case .update: "app.update"
        case .delete: "app.delete"
        }
    }

    enum Locked: Sendable {
        case team(TeamRecord)
        case app(AppRecord)
    }

    func authorize(_ principal: Principal) throws {
        guard principal.canWrite else {
            switch kind {
            case .create: throw APIProblem.forbidden("a read token cannot register apps")
            case .update: throw APIProblem.forbidden("a read token cannot change apps")
            case .delete: throw APIProblem.forbidden("a read token cannot delete apps")
            }
        }
    }

    func lock(_ session: DBSession, principal: Principal) async throws -> Locked {
        switch kind {
        case .create(let team, _, _, _): .team(try await Lookup.visibleTeam(team, principal, session: session))
        case .update(let appID, _, _, _), .delete(let appID):
            .app(try await Lookup.visibleApp(appID, principal, session: session, forUpdate: true))
        }
    }

    func checkIfMatch(_ locked: Locked) throws {
        if case .app(let app) = locked { try ETag.check(ifMatch, version: app.version) }
    }

    func apply(_ locked: Locked, principal: Principal, session: DBSession) async throws -> Applied<AppRecord> {
        switch (kind, locked) {
        case (.create(_, let appID, let services, let fingerprints), .team(let team)):
            // An Android package name has no Apple Team ID to claim.
            if fingerprints == nil { try await AppleTeamIDs.checkApp(appID, team: team, session: session) }
            let app: AppRecord
            do {
                app = try await session.insertApp(appID: appID, teamID: team.id, services: services,
                                                  platform: fingerprints == nil ? .ios : .android, fingerprints: fingerprints ?? [])
            }
            catch StoreError.duplicate {
                throw APIProblem.conflict("the app ID \(appID) is already registered", field: "/appID", rule: "unique")
            }
            // A new app joins a domain's document only through a domain-wide service (it has no
            // rules yet): only then are its team's granted domains validated again (and locked).
            let domains = Self.listsOnDomains(services) ? try await session.domainIDsGranted(teamID: team.id) : []
            return Applied(output: app, domains: domains, audit: [AuditEntry(
                action: action, entityType: "app", entityID: app.appID, team: team.name, appID: app.appID, after: AuditJSON.app(app))])

        case (.update(_, let newTeam, let newServices, let newFingerprints), .app(let before)):
            var teamID = before.teamID
            if let newTeam, newTeam != before.teamName {
                guard principal.isAdmin else { throw APIProblem.forbidden("this needs an admin token") }
                guard let team = try await session.team(named: newTeam) else {
                    throw APIProblem.invalid(field: "/team", rule: "exists", "there is no team \(newTeam)")
                }
                if before.platform == .ios { try await AppleTeamIDs.checkApp(before.appID, team: team, session: session) }
                teamID = team.id
            }
            let services = newServices ?? before.services
            if let bad = services.first(where: { !before.platform.services.contains($0) }) {
                throw APIProblem.invalid(field: "/services", rule: "platform", "an \(before.platform.rawValue) app has no \(bad.rawValue) service")
            }
            if newFingerprints != nil && before.platform != .android {
                throw APIProblem.invalid(field: "/fingerprints", rule: "platform", "only an Android app has signing certificate fingerprints")
            }
            let ruleDomains = try await session.domainIDsWithRules(appPK: before.id)
            if !services.contains(.applinks) {
                for id in ruleDomains where !(try await session.ruleSet(domainID: id, app: before).rules.isEmpty) {
                    let host = try await session.domain(id: id)?.host ?? "a domain"
                    throw APIProblem.invalid(field: "/services", rule: "applinks-in-use",
                        "the app has rules on \(host); remove them before turning applinks off")
                }
            }
            try await session.updateApp(id: before.id, teamID: teamID, services: services, fingerprints: newFingerprints ?? before.fingerprints)
            guard let after = try await session.app(appID: before.appID) else { throw APIProblem.notFound("no app \(before.appID)") }
            let listed = Self.listsOnDomains(before.services) || Self.listsOnDomains(services)
            let granted = listed ? try await session.domainIDsGranted(teamID: teamID) + session.domainIDsGranted(teamID: before.teamID) : []
            return Applied(output: after, domains: ruleDomains + granted, audit: [AuditEntry(
                action: action, entityType: "app", entityID: after.appID, team: after.teamName, appID: after.appID,
                before: AuditJSON.app(before), after: AuditJSON.app(after))])

        case (.delete, .app(let app)):
            let granted = Self.listsOnDomains(app.services) ? try await session.domainIDsGranted(teamID: app.teamID) : []
            let domains = try await session.domainIDsWithRules(appPK: app.id) + granted
            try await session.deleteApp(id: app.id)
            return Applied(output: app, domains: domains, audit: [AuditEntry(
                action: action, entityType: "app", entityID: app.appID, team: app.teamName, appID: app.appID,
                before: AuditJSON.app(app))])

        default:
            preconditionFailure("lock(_:principal:) locks what its kind names")
        }
    }

    /// Whether these services put an app on its team's granted domains without any rule.
    static func listsOnDomains(_ services: [AppService]) -> Bool {
        services.contains { $0 != .applinks }
    }
}
