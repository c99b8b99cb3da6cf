import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// Every read the API answers, with the visibility rules applied the same way everywhere: what
/// the caller may not see is 404, and a team sees drafts as `DraftView` says. Handlers call these
/// and encode; they never hold a session.
package struct RegistryReads: Sendable {
    package let work: RequestWork
    package let principal: Principal

    package init(work: RequestWork, principal: Principal) {
        self.work = work
        self.principal = principal
    }

    // MARK: Teams, tokens, apps

    package func teams(_ page: PageRequest) async throws -> Page<TeamRecord> {
        if !principal.isAdmin && principal.teamID == nil { return Page(items: [], next: nil) }
        let rows = try await work.read {
            try await $0.listTeams(
                onlyID: principal.isAdmin ? nil : principal.teamID, after: page.after, limit: page.fetch)
        }
        return page.cut(rows, key: \.name)
    }

    package func team(_ name: String) async throws -> TeamRecord {
        try await work.read { try await Lookup.visibleTeam(name, principal, session: $0) }
    }

    package func tokens(team name: String) async throws -> [TokenRecord] {
        try await work.read { session in
            try await session.listTokens(teamID: try await Lookup.visibleTeam(name, principal, session: session).id)
        }
    }

    package func apps(team name: String) async throws -> [AppRecord] {
        try await work.read { session in
            try await session.listApps(teamID: try await Lookup.visibleTeam(name, principal, session: session).id)
        }
    }

    /// The app, with the services it asks for that a grant of its team does not give (`ServiceGrants`).
    package func appWithWarnings(_ appID: String) async throws -> (app: AppRecord, warnings: [Finding]) {
        try await work.read { session in
            let app = try await Lookup.visibleApp(appID, principal, session: session)
            let grants = try await session.listGrants(teamID: app.teamID)
            return (app, ServiceGrants.findings(app: app, grants: grants))
        }
    }

    // MARK: Domains, grants, rules, order

    package func domains(_ page: PageRequest) async throws -> Page<DomainRecord> {
        let rows = try await work.read { try await $0.listDomains(after: page.after, limit: page.fetch) }
        return page.cut(rows, key: \.host)
    }

    package func domain(_ host: String) async throws -> DomainRecord {
        try await work.read { try await Lookup.domain(host, session: $0) }
    }

    /// The domain with whether each of its files has unpublished changes (`UnpublishedChanges`).
    package func domainWithUnpublished(_ host: String) async throws -> (DomainRecord, UnpublishedChanges) {
        try await work.read { session in
            let domain = try await Lookup.domain(host, session: session)
            return (domain, try await UnpublishedChanges.of(domain, session: session))
        }
    }

    package func grants(_ host: String) async throws -> [GrantRecord] {
        try await work.read { session in
            try await session.listGrants(domainID: try await Lookup.domain(host, session: session).id)
        }
    }

    /// Every grant of a team this caller may see (its own, or any for an admin), by host.
    package func grants(team name: String) async throws -> [GrantRecord] {
        try await work.read { session in
            try await session.listGrants(teamID: try await Lookup.visibleTeam(name, principal, session: session).id)
        }
    }

    package func grant(_ host: String, team: String) async throws -> GrantRecord {
        try await work.read { session in
            let domain = try await Lookup.domain(host, session: session)
            guard let team = try await session.team(named: team),
                let grant = try await session.grant(domainID: domain.id, teamID: team.id)
            else {
                throw ServiceError.notFound("team \(team) has no grant on \(domain.host)")
            }
            return grant
        }
    }

    package func rules(_ host: String, appID: String) async throws -> (host: String, set: RuleSetRecord) {
        try await work.read { session in
            let domain = try await Lookup.domain(host, session: session)
            let app = try await Lookup.visibleApp(appID, principal, session: session)
            return (domain.host, try await session.ruleSet(domainID: domain.id, app: app))
        }
    }

    package func order(_ host: String) async throws -> (domain: DomainRecord, apps: [String]) {
        try await work.read { session in
            let domain = try await Lookup.domain(host, session: session)
            return (domain, DomainDocument.Draft(try await session.snapshot(of: domain)).order)
        }
    }

    // MARK: Drafts and revisions

    /// The draft as the caller may see it, rendered and validated after the connection's reads.
    package func draft(_ host: String) async throws -> DomainDocument {
        let snapshot = try await work.read { session in
            try await draftSnapshot(try await Lookup.domain(host, session: session), session: session)
        }
        return try await DomainDocument.render(snapshot)
    }

    private func draftSnapshot(_ domain: DomainRecord, session: DBSession) async throws -> DomainSnapshot {
        try await Self.draftSnapshot(domain, for: principal, session: session)
    }

    /// The domain's draft as this principal may see it (`DraftView`).
    package static func draftSnapshot(_ domain: DomainRecord, for principal: Principal, session: DBSession) async throws
        -> DomainSnapshot
    {
        let snapshot = try await session.snapshot(of: domain)
        guard !principal.isAdmin else { return snapshot }
        let published = try await session.currentRevision(of: domain)
        let android = try await session.currentAssetLinksRevision(domainID: domain.id)
        return DraftView.snapshot(
            snapshot, published: published?.bytes, publishedAssetLinks: android?.bytes, for: principal)
    }

    /// A page of one published file's revisions (the AASA's or assetlinks.json's), newest first.
    package func revisions(of file: PublishedFile, _ host: String, before: Int?, limit: Int) async throws -> (
        host: String, items: [RevisionRecord]
    ) {
        try await work.read { session in
            let domain = try await Lookup.domain(host, session: session)
            return (domain.host, try await file.revisions(session, domainID: domain.id, before: before, limit: limit))
        }
    }

    package func revision(_ host: String, number: Int) async throws -> (host: String, revision: RevisionRecord) {
        try await work.read { session in
            let domain = try await Lookup.domain(host, session: session)
            return (domain.host, try await Self.revision(number, of: domain, session: session))
        }
    }

    /// The bytes of revision `from` and of revision `to` (a number, or `draft` as the caller sees it).
    package func diffInputs(_ host: String, from: Int, to: String) async throws -> (
        host: String, old: [UInt8], new: [UInt8]
    ) {
        try await diffInputs(host, from: from, to: to, what: "revision", draft: \.bytes) { session, domain, number in
            try await session.revision(domainID: domain.id, number: number)
        }
    }

    /// Two assetlinks.json files to compare: revision `from`, and revision `to` or the draft.
    package func assetLinksDiffInputs(_ host: String, from: Int, to: String) async throws -> (
        host: String, old: [UInt8], new: [UInt8]
    ) {
        try await diffInputs(host, from: from, to: to, what: "assetlinks.json revision", draft: \.android.bytes) {
            session, domain, number in
            try await session.assetLinksRevision(domainID: domain.id, number: number)
        }
    }

    /// Revision `from` of one file's stream, and revision `to` of it or the draft's file.
    private func diffInputs(
        _ host: String, from: Int, to: String, what: String,
        draft file: @escaping @Sendable (DomainDocument) -> [UInt8],
        revision read: @escaping @Sendable (DBSession, DomainRecord, Int) async throws -> RevisionRecord?
    )
        async throws -> (host: String, old: [UInt8], new: [UInt8])
    {
        enum New: Sendable {
            case bytes([UInt8])
            case draft(DomainSnapshot)
        }
        func revision(_ number: Int, _ domain: DomainRecord, _ session: DBSession) async throws -> [UInt8] {
            guard let found = try await read(session, domain, number) else {
                throw ServiceError.notFound("\(domain.host) has no \(what) \(number)")
            }
            return found.bytes
        }
        let (domainHost, old, new) = try await work.read { session -> (String, [UInt8], New) in
            let domain = try await Lookup.domain(host, session: session)
            guard from >= 1 else {
                throw ServiceError.badRequest("from is a revision number, 1 or more", field: "from", rule: "minimum")
            }
            let old = try await revision(from, domain, session)
            if to == "draft" { return (domain.host, old, .draft(try await draftSnapshot(domain, session: session))) }
            guard let number = Int(to), number > 0 else {
                throw ServiceError.badRequest("`to` is a revision number or `draft`", field: "to", rule: "format")
            }
            return (domain.host, old, .bytes(try await revision(number, domain, session)))
        }
        switch new {
        case .bytes(let bytes): return (domainHost, old, bytes)
        case .draft(let snapshot): return (domainHost, old, file(try await DomainDocument.render(snapshot)))
        }
    }

    private static func revision(_ number: Int, of domain: DomainRecord, session: DBSession) async throws
        -> RevisionRecord
    {
        guard let revision = try await session.revision(domainID: domain.id, number: number) else {
            throw ServiceError.notFound("\(domain.host) has no revision \(number)")
        }
        return revision
    }

    /// What `POST /v1/match` reads: the file that answers for `urlHost` (its domain's current
    /// revision, or its draft as the caller may see it), or the parent domain an app with a
    /// wildcard entitlement (`applinks:*.parent`) would read instead.
    package struct MatchSource: Sendable {
        package var host: String
        package var revision: Int?
        package var bytes: [UInt8]?
        package var document: DomainDocument?
        package var wildcardParent: String?
        /// assetlinks.json: the current revision's number and bytes (published), or the draft's
        /// bytes; nil when the domain has none.
        package var assetLinksRevision: Int?
        package var assetLinksBytes: [UInt8]?
    }

    package func matchSource(urlHost: String, draft: Bool) async throws -> MatchSource {
        enum Found: Sendable {
            case published(String, RevisionRecord?, RevisionRecord?)
            case draft(String, DomainSnapshot)
            case parent(String)
        }
        let found = try await work.read { session -> Found in
            if let id = try await session.domainID(answeringTo: urlHost), let domain = try await session.domain(id: id)
            {
                if draft { return .draft(domain.host, try await draftSnapshot(domain, session: session)) }
                let revision = try await session.currentRevision(of: domain)
                return .published(
                    domain.host, revision, try await session.currentAssetLinksRevision(domainID: domain.id))
            }
            var labels = urlHost.split(separator: ".").dropFirst()
            while labels.count >= 2 {
                let parent = labels.joined(separator: ".")
                if try await session.domainID(answeringTo: parent) != nil { return .parent(parent) }
                labels = labels.dropFirst()
            }
            throw ServiceError.notFound(
                "no domain answers to \(urlHost), nor a parent domain for a wildcard entitlement")
        }
        switch found {
        case .parent(let parent):
            return MatchSource(host: urlHost, wildcardParent: parent)
        case .draft(let host, let snapshot):
            let rendered = try await DomainDocument.render(snapshot)
            return MatchSource(
                host: host, bytes: rendered.bytes, document: rendered,
                assetLinksBytes: rendered.android.isEmpty ? nil : rendered.android.bytes)
        case .published(let host, let revision, let android):
            return MatchSource(
                host: host, revision: revision?.number, bytes: revision?.bytes,
                assetLinksRevision: android?.number, assetLinksBytes: android?.bytes)
        }
    }

    /// The team of each of these apps that is registered.
    package func teams(ofApps appIDs: [String]) async throws -> [String: String] {
        guard !appIDs.isEmpty else { return [:] }
        return try await work.read { try await $0.teamNames(ofApps: appIDs) }
    }

    // MARK: Audit and health

    package func audit(_ filter: AuditFilter) async throws -> [AuditEventRecord] {
        try await work.read { try await $0.listAudit(filter) }
    }

    // MARK: Guardrails

    /// The suspensions in force on a domain (`*`: all of them).
    package func suspensions(_ scope: String) async throws -> [SuspensionRecord] {
        try await work.read { session in
            let domain: DomainRecord? = scope == "*" ? nil : try await Lookup.domain(scope, session: session)
            return try await session.suspensions(affecting: domain?.id)
        }
    }

    /// The hosts (primary and aliases, punycode) the app needs per service: `applinks` where it has
    /// rules, each other service where it has that service and its team's grant gives it.
    /// The hosts an app needs in its associated-domains entitlement, per service; with an
    /// environment, only that environment's domains, for the app's build there (its ID is the
    /// build's: the one the build's entitlement file goes with).
    package func entitlementHosts(
        _ appID: String, environment: String? = nil
    ) async throws -> (app: AppRecord, identity: String, hosts: [AppService: [String]]) {
        try await work.read { session in
            let app = try await Lookup.visibleApp(appID, principal, session: session)
            var identity = app.appID
            // An app with builds is a different ID in some environments: one list for all of them
            // would pair the production ID with domains whose files name the build's (issue 41).
            let builds = try await session.builds(appPKs: [app.id])
            if environment == nil, !builds.isEmpty {
                let listed = builds.map { "\($0.environment): \($0.identity)" }.joined(separator: ", ")
                throw ServiceError.invalid(
                    field: "env", rule: "env-required",
                    "\(app.appID) has builds (\(listed)), so its entitlements differ by environment: "
                        + "ask for one with env")
            }
            if let environment {
                let names = try await session.listEnvironments().map(\.name)
                guard names.contains(environment) else {
                    throw ServiceError.invalid(
                        field: "env", rule: "unknown-environment",
                        "there is no environment \(environment) (there are \(names.joined(separator: ", ")))")
                }
                identity = builds.first { $0.environment == environment }?.identity ?? app.appID
            }
            func inScope(_ domain: DomainRecord) -> Bool { environment.map { domain.environment == $0 } ?? true }
            var hosts: [AppService: [String]] = [:]
            for id in try await session.domainIDsWithRules(appPK: app.id) {
                guard let domain = try await session.domain(id: id), inScope(domain), app.services.contains(.applinks),
                    !(try await session.ruleSet(domainID: id, app: app)).rules.isEmpty
                else { continue }
                hosts[.applinks, default: []] += [domain.host] + domain.aliases
            }
            for id in try await session.domainIDsGranted(teamID: app.teamID) {
                guard let domain = try await session.domain(id: id), inScope(domain),
                    let grant = try await session.grant(domainID: id, teamID: app.teamID)
                else { continue }
                for service in grant.services where app.services.contains(service) {
                    hosts[service, default: []] += [domain.host] + domain.aliases
                }
            }
            return (app, identity, hosts)
        }
    }

    /// The environments in promotion order.
    package func environments() async throws -> [EnvironmentRecord] {
        try await work.read { try await $0.listEnvironments() }
    }

    /// An app (visible to the caller) and its builds in promotion order.
    package func builds(_ appID: String) async throws -> (app: AppRecord, builds: [BuildRecord]) {
        try await work.read { session in
            let app = try await Lookup.visibleApp(appID, principal, session: session)
            return (app, try await session.builds(appPKs: [app.id]))
        }
    }

}
