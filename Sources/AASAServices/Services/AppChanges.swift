import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore

/// An app registered, changed (services, or moved to another team by an admin) or deleted. Apps
/// reach domains through their rules and, for the other services, through their team's grants:
/// every such domain is validated again.
package struct AppChange: DomainChange {
    package enum Kind: Sendable {
        case create(team: String, appID: String, services: [AppService], android: [String]?, rulesFrom: String? = nil)
        /// `rulesFrom`: nil leaves it, "" makes the app keep its own rules again.
        case update(
            appID: String, team: String?, services: [AppService]?, fingerprints: [String]?, rulesFrom: String? = nil)
        /// The app signing keys Play Console shows (`PlaySigningSnippet`): added to the app's keys
        /// if missing, and labelled `play-signing`, within the app's lock.
        case playSigning(appID: String, fingerprints: [String])
        case delete(appID: String)
    }

    package let kind: Kind
    package let ifMatch: String?
    /// The labels of an Android app's keys, by fingerprint (shape checked by `AppInput.checkKeyLabels`):
    /// on create, the app's; on update, all of them anew (nil: kept for the fingerprints that stay).
    package let keyLabels: [String: String]?

    package init(kind: Kind, ifMatch: String?, keyLabels: [String: String]? = nil) {
        self.kind = kind
        self.ifMatch = ifMatch
        self.keyLabels = keyLabels
    }
    package var action: String {
        switch kind {
        case .create: "app.create"
        case .update: "app.update"
        case .playSigning: "app.keys.play-signing"
        case .delete: "app.delete"
        }
    }

    package enum Locked: Sendable {
        case team(TeamRecord)
        case app(AppRecord)
    }

    package func authorize(_ principal: Principal) throws {
        guard principal.canWrite else {
            switch kind {
            case .create: throw ServiceError.forbidden("a read token cannot register apps")
            case .update, .playSigning: throw ServiceError.forbidden("a read token cannot change apps")
            case .delete: throw ServiceError.forbidden("a read token cannot delete apps")
            }
        }
    }

    package func lock(_ session: DBSession, principal: Principal) async throws -> Locked {
        switch kind {
        case .create(let team, _, _, _, _): .team(try await Lookup.visibleTeam(team, principal, session: session))
        case .update(let appID, _, _, _, _), .playSigning(let appID, _), .delete(let appID):
            .app(try await Lookup.visibleApp(appID, principal, session: session, forUpdate: true))
        }
    }

    package func checkIfMatch(_ locked: Locked) throws {
        if case .app(let app) = locked { try ETag.check(ifMatch, version: app.version) }
    }

    package func apply(_ locked: Locked, principal: Principal, session: DBSession) async throws -> Applied<AppRecord> {
        switch (kind, locked) {
        case (.create(_, let appID, let services, let fingerprints, let rulesFrom), .team(let team)):
            try AppInput.checkLabelled(keyLabels, fingerprints: fingerprints)
            var app = try await Self.register(
                appID: appID, team: team, services: services, fingerprints: fingerprints, keyLabels: keyLabels ?? [:],
                session: session, field: "/appID")
            var domains: [Int64] = []
            if let rulesFrom {
                let source = try await Self.ruleSource(rulesFrom, for: app, session: session)
                try await session.setRulesFrom(id: app.id, source: source.id)
                app = try await session.app(appID: appID) ?? app
                domains = try await session.domainIDsWithRules(appPK: source.id)
            }
            // A new app joins a domain's document only through a domain-wide service or the rules
            // it follows: only then are those domains validated again (and locked).
            if Self.listsOnDomains(services) { domains += try await session.domainIDsGranted(teamID: team.id) }
            return Applied(
                output: app, domains: domains,
                audit: [
                    AuditEntry(
                        action: action, entityType: "app", entityID: app.appID, team: team.name, appID: app.appID,
                        after: AuditJSON.app(app))
                ])

        case (.update(_, let newTeam, let newServices, let newFingerprints, let newRulesFrom), .app(let before)):
            return try await update(
                before, team: newTeam, services: newServices, fingerprints: newFingerprints, rulesFrom: newRulesFrom,
                keyLabels: keyLabels, principal: principal, session: session)

        case (.playSigning(_, let keys), .app(let before)):
            guard before.platform == .android else {
                throw ServiceError.invalid(
                    field: "", rule: "platform", "\(before.appID) is an iOS app; Play App Signing keys are Android's")
            }
            let fingerprints = before.fingerprints + keys.filter { !before.fingerprints.contains($0) }
            guard fingerprints.count <= 20 else {
                throw ServiceError.invalid(
                    field: "", rule: "maxItems",
                    "\(before.appID) would list \(fingerprints.count) keys; an app lists at most 20")
            }
            var labels = before.keyLabels
            for key in keys { labels[key] = LabelledFingerprint.playSigning }
            return try await update(
                before, team: nil, services: nil, fingerprints: fingerprints, rulesFrom: nil, keyLabels: labels,
                principal: principal, session: session)

        case (.delete, .app(let app)):
            let followers = try await session.followers(appPK: app.id)
            guard followers.isEmpty else {
                throw ServiceError.conflict(
                    "\(followers.joined(separator: ", ")) follow \(app.appID)'s rules; make them keep their own first",
                    field: "appID", rule: "rules-from")
            }
            let granted =
                Self.listsOnDomains(app.services) ? try await session.domainIDsGranted(teamID: app.teamID) : []
            let domains = try await session.domainIDsWithRules(appPK: app.id) + granted
            try await session.deleteApp(id: app.id)
            return Applied(
                output: app, domains: domains,
                audit: [
                    AuditEntry(
                        action: action, entityType: "app", entityID: app.appID, team: app.teamName, appID: app.appID,
                        before: AuditJSON.app(app))
                ])

        default:
            preconditionFailure("lock(_:principal:) locks what its kind names")
        }
    }

    /// An app's services, team, keys or rule source changed, every check made in the app's lock.
    private func update(
        _ before: AppRecord, team newTeam: String?, services newServices: [AppService]?,
        fingerprints newFingerprints: [String]?, rulesFrom newRulesFrom: String?, keyLabels: [String: String]?,
        principal: Principal, session: DBSession
    ) async throws -> Applied<AppRecord> {
        var teamID = before.teamID
        if let newTeam, newTeam != before.teamName {
            guard principal.isAdmin else { throw ServiceError.forbidden("this needs an admin token") }
            let followers = try await session.followers(appPK: before.id)
            if !followers.isEmpty || before.rulesFrom != nil {
                throw ServiceError.conflict(
                    "\(before.appID) shares its rules with "
                        + "\((followers + [before.rulesFrom].compactMap { $0 }).joined(separator: ", ")); "
                        + "an app moves to another team only alone: stop the sharing first", field: "/team",
                    rule: "rules-from")
            }
            guard let team = try await session.team(named: newTeam) else {
                throw ServiceError.invalid(field: "/team", rule: "exists", "there is no team \(newTeam)")
            }
            if before.platform == .ios {
                try await AppleTeamIDs.checkApp(before.appID, team: team, session: session)
            }
            teamID = team.id
        }
        let services = newServices ?? before.services
        if let bad = services.first(where: { !before.platform.services.contains($0) }) {
            throw ServiceError.invalid(
                field: "/services", rule: "platform",
                "an \(before.platform.rawValue) app has no \(bad.rawValue) service")
        }
        if newFingerprints != nil && before.platform != .android {
            throw ServiceError.invalid(
                field: "/fingerprints", rule: "platform", "only an Android app has signing certificate fingerprints"
            )
        }
        let ruleDomains = try await session.domainIDsWithRules(appPK: before.id)
        if !services.contains(.applinks) {
            for id in ruleDomains where !(try await session.ruleSet(domainID: id, app: before).rules.isEmpty) {
                let host = try await session.domain(id: id)?.host ?? "a domain"
                throw ServiceError.invalid(
                    field: "/services", rule: "applinks-in-use",
                    "the app has rules on \(host); remove them before turning applinks off")
            }
        }
        let fingerprints = newFingerprints ?? before.fingerprints
        if keyLabels != nil && before.platform != .android {
            throw ServiceError.invalid(
                field: "/keyLabels", rule: "platform", "only an Android app has signing keys to label")
        }
        try AppInput.checkLabelled(keyLabels, fingerprints: fingerprints)
        try await session.updateApp(
            id: before.id, teamID: teamID, services: services, fingerprints: fingerprints,
            keyLabels: keyLabels ?? before.keyLabels)
        var followed: [Int64] = []
        if let newRulesFrom {
            try Self.checkFollows(before)
            if let old = before.rulesFrom, let oldSource = try await session.app(appID: old) {
                followed += try await session.domainIDsWithRules(appPK: oldSource.id)
            }
            if newRulesFrom.isEmpty {
                try await session.setRulesFrom(id: before.id, source: nil)
            } else {
                for id in try await session.domainIDsWithRules(appPK: before.id)
                where !(try await session.ruleSet(domainID: id, app: before).rules.isEmpty) {
                    let host = try await session.domain(id: id)?.host ?? "a domain"
                    throw ServiceError.invalid(
                        field: "/rulesFrom", rule: "own-rules",
                        """
                        \(before.appID) has rules of its own on \(host); remove them before it follows \
                        \(newRulesFrom)'s
                        """
                    )
                }
                let source = try await Self.ruleSource(newRulesFrom, for: before, session: session)
                try await session.setRulesFrom(id: before.id, source: source.id)
                followed += try await session.domainIDsWithRules(appPK: source.id)
            }
        }
        guard let after = try await session.app(appID: before.appID) else {
            throw ServiceError.notFound("no app \(before.appID)")
        }
        let listed = Self.listsOnDomains(before.services) || Self.listsOnDomains(services)
        let granted =
            listed
            ? try await session.domainIDsGranted(teamID: teamID) + session.domainIDsGranted(teamID: before.teamID)
            : []
        return Applied(
            output: after, domains: ruleDomains + granted + followed,
            audit: [
                AuditEntry(
                    action: action, entityType: "app", entityID: after.appID, team: after.teamName,
                    appID: after.appID,
                    before: AuditJSON.app(before), after: AuditJSON.app(after))
            ])
    }

    /// Registers an app for the apps API and a manifest alike: an iOS app ID's prefix must be one the
    /// team may use (`AppleTeamIDs`; an Android package has none to claim), and an ID registered
    /// already is 409 naming `field`.
    package static func register(
        appID: String, team: TeamRecord, services: [AppService], fingerprints: [String]?,
        keyLabels: [String: String] = [:], session: DBSession, field: String
    ) async throws -> AppRecord {
        if fingerprints == nil { try await AppleTeamIDs.checkApp(appID, team: team, session: session) }
        let inserted: AppRecord?
        do {
            inserted = try await session.insertApp(
                appID: appID, teamID: team.id, services: services,
                platform: fingerprints == nil ? .ios : .android, fingerprints: fingerprints ?? [], keyLabels: keyLabels)
        } catch StoreError.duplicate {
            throw ServiceError.conflict("the app ID \(appID) is already registered", field: field, rule: "unique")
        }
        if let inserted { return inserted }
        // Nothing was written: a build has this ID. Whose, for the message.
        let build = try await session.builds(identities: [appID]).first
        throw ServiceError.conflict(
            "\(appID) is \(build.map { "\($0.appID)'s \($0.environment) build" } ?? "a build's ID"); "
                + "an app cannot take a build's ID",
            field: field, rule: "unique")
    }

    /// Only an Android app follows another app's rules (the `apps_platform_shape` constraint): a
    /// 422 here, on every path that sets `rulesFrom`, rather than the database's refusal as a 500.
    static func checkFollows(_ app: AppRecord, field: String = "/rulesFrom") throws {
        guard app.platform == .android else {
            throw ServiceError.invalid(
                field: field, rule: "platform", "only an Android app follows another app's rules")
        }
    }

    /// The iOS app of the same team whose rules an Android app follows (422 naming `field` otherwise).
    package static func ruleSource(
        _ appID: String, for app: AppRecord, session: DBSession, field: String = "/rulesFrom"
    ) async throws -> AppRecord {
        try checkFollows(app, field: field)
        guard let source = try await session.app(appID: appID), source.teamID == app.teamID else {
            throw ServiceError.invalid(field: field, rule: "exists", "team \(app.teamName) has no app \(appID)")
        }
        guard source.platform == .ios else {
            throw ServiceError.invalid(
                field: field, rule: "platform", "an Android app follows an iOS app's rules; \(appID) is not one")
        }
        return source
    }

    /// Whether these services put an app on its team's granted domains without any rule.
    package static func listsOnDomains(_ services: [AppService]) -> Bool {
        services.contains { $0 != .applinks }
    }
}
