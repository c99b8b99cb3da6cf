import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore

/// An app's builds replaced as a whole (`PUT /v1/apps/{appID}/builds`): what the app is in each
/// environment. Every domain that names the app is rendered again and judged by the policies
/// (environment isolation above all), so a build that would leak is refused before it lands.
package struct BuildsChange: DomainChange {
    package let appID: String
    package let items: [BuildsInput.Item]
    package let ifMatch: String?
    /// Where a refusal points in the request body: "" for the builds API, the app's pointer in a
    /// manifest (`/apps/0`).
    package var pointer = ""

    package init(appID: String, items: [BuildsInput.Item], ifMatch: String?, pointer: String = "") {
        self.appID = appID
        self.items = items
        self.ifMatch = ifMatch
        self.pointer = pointer
    }
    package var action: String { "app.builds" }

    package func authorize(_ principal: Principal) throws {
        guard principal.canWrite else { throw ServiceError.forbidden("a read token cannot change builds") }
    }

    package func lock(_ session: DBSession, principal: Principal) async throws -> AppRecord {
        try await Lookup.visibleApp(appID, principal, session: session, forUpdate: true)
    }

    package func checkIfMatch(_ app: AppRecord) throws { try ETag.check(ifMatch, version: app.version) }

    package func apply(_ app: AppRecord, principal: Principal, session: DBSession) async throws -> Applied<
        [BuildRecord]
    > {
        let (before, builds) = try await Self.write(items, app: app, session: session, pointer: pointer)
        // Wherever the app is named: its rules' domains, the rules it follows, its team's grants.
        var domains = try await session.domainIDsWithRules(appPK: app.id)
        if let source = app.rulesFrom, let followed = try await session.app(appID: source) {
            domains += try await session.domainIDsWithRules(appPK: followed.id)
        }
        if AppChange.listsOnDomains(app.services) || app.platform == .android {
            domains += try await session.domainIDsGranted(teamID: app.teamID)
        }
        // The same builds again change nothing, and the audit says nothing.
        return Applied(
            output: builds, domains: domains,
            audit: before == builds
                ? []
                : [
                    AuditEntry(
                        action: action, entityType: "app", entityID: app.appID, team: app.teamName,
                        appID: app.appID, before: AuditJSON.builds(before), after: AuditJSON.builds(builds))
                ])
    }

    /// Replaces the app's builds, for the builds API and a manifest alike: checked against the app
    /// and the environments (`BuildsInput`), each iOS build's prefix one the team may use, and one
    /// app ID one build (another app's own ID, or another app's build, is 409 naming `pointer/…`).
    /// Returns the builds before and after.
    package static func write(
        _ items: [BuildsInput.Item], app: AppRecord, session: DBSession, pointer: String = ""
    ) async throws -> (before: [BuildRecord], after: [BuildRecord]) {
        let environments = try await session.listEnvironments().map(\.name)
        let builds = try BuildsInput.check(items, app: app, environments: environments, pointer: pointer)
        // A build's app ID is under a prefix the team may use, as the app's own is.
        if app.platform == .ios, let team = try await session.team(named: app.teamName) {
            for build in builds where build.identity != app.appID {
                try await AppleTeamIDs.checkApp(build.identity, team: team, session: session)
            }
        }
        // One app ID is one build: another app's own ID, or another app's build, is refused.
        for (i, build) in builds.enumerated() where build.identity != app.appID {
            if let other = try await session.app(appID: build.identity) {
                throw ServiceError.conflict(
                    "\(build.identity) is registered as an app of team \(other.teamName); a build cannot take its ID",
                    field: "\(pointer)/builds/\(i)/appID", rule: "unique")
            }
        }
        let taken = try await session.builds(identities: builds.map(\.identity)).filter { $0.appPK != app.id }
        if let i = builds.firstIndex(where: { b in taken.contains { $0.identity == b.identity } }) {
            let owner = taken.first { $0.identity == builds[i].identity }
            throw ServiceError.conflict(
                "\(builds[i].identity) is already \(owner?.appID ?? "another app")'s \(owner?.environment ?? "") build",
                field: "\(pointer)/builds/\(i)/appID", rule: "unique")
        }
        let before = try await session.builds(appPKs: [app.id])
        // The same builds in another order are no change (the app's ETag stays).
        if before.count == builds.count && builds.allSatisfy(before.contains) { return (before, before) }
        try await session.replaceBuilds(appPK: app.id, builds)
        return (before, builds)
    }
}
