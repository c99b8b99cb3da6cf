import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation

/// The console's reads and writes: the API's own handlers, called in-process as the session's
/// principal, their answers the API's own generated types. A page can therefore show nothing the API
/// would not show that token, every refusal is the API's own `ServiceError`, and a page reads each
/// answer's properties: a field renamed in openapi.yaml is a compile error here, not an empty cell.
struct ConsoleAPI: Sendable {
    typealias Schemas = Components.Schemas

    let api: APIImplementation

    /// The API's answer as plain JSON objects (what the templates read), dates as ISO 8601: the
    /// values the API's own encoder builds, without writing JSON and parsing it back (a tenth of the
    /// test page's time in the profile was `JSONSerialization` reading what `JSONEncoder` wrote).
    static func plain(_ value: some Encodable) throws -> [String: Any] {
        try encoder.plainValue(value) as? [String: Any] ?? [:]
    }

    /// A list of the API's values as plain JSON objects, as `plain` makes each.
    static func plainList(_ values: [some Encodable]) throws -> [[String: Any]] {
        try values.map { try plain($0) }
    }

    /// One for every page: its date transcoder holds a formatter, too costly to make per answer.
    private static let encoder = AnswerEncoder()

    func domains(cursor: String?) async throws -> Schemas.DomainList {
        try await api.listDomains(.init(query: .init(cursor: cursor, limit: 200))).ok.body.json
    }

    func domain(_ host: String) async throws -> Schemas.Domain {
        try await api.getDomain(.init(path: .init(host: host))).ok.body.json
    }

    /// The draft as this token may see it, with each `details` entry's team: the service the API's
    /// `GET /aasa` reads, without its round trip through the generated untyped JSON (which the
    /// profile showed costing most of the domain page). The Android half is the same render's:
    /// each assetlinks.json statement, as the renderer built it, with its entry (app, team, whose
    /// rule list it carries).
    func draft(_ host: String) async throws -> (
        json: JSONValue, teams: [String],
        android: [(entry: AndroidDocument.Entry, statement: AssetLinksDocument.Statement)]
    ) {
        let rendered = try await api.reads(try api.principal()).draft(host)
        // Parsed from the served bytes: the report's rule pointers name places in those.
        let json = try JSONParser.parse(rendered.bytes).value
        let android = rendered.android
        return (
            json, rendered.entries.map(\.team),
            Array(zip(android.entries, android.document.statements.map(\.statement)))
        )
    }

    /// Whether the draft's bytes differ from the current revision's (the renderer is canonical: the
    /// same state renders the same bytes).
    /// Whether either file has unpublished changes: the domain answer's `unpublished`, the one
    /// definition promotion uses too.
    func draftDiffers(_ host: String) async throws -> Bool {
        let unpublished = try await api.reads(try api.principal()).domainWithUnpublished(host).1
        return unpublished.any
    }

    func grants(_ host: String) async throws -> Schemas.GrantList {
        try await api.listGrants(.init(path: .init(host: host))).ok.body.json
    }

    func report(_ host: String) async throws -> Schemas.Report {
        try await api.getReport(.init(path: .init(host: host))).ok.body.json
    }

    func expectations(_ host: String) async throws -> Schemas.ExpectationCheck {
        try await api.checkExpectations(.init(path: .init(host: host))).ok.body.json
    }

    func targets(_ host: String) async throws -> Schemas.DomainTargets {
        try await api.getTargets(.init(path: .init(host: host))).ok.body.json
    }

    func relatedOrigins(_ host: String) async throws -> Schemas.RelatedOriginList {
        try await api.listRelatedOrigins(.init(path: .init(host: host))).ok.body.json
    }

    func suspensions(_ host: String) async throws -> Schemas.SuspensionList {
        try await api.listSuspensions(.init(path: .init(host: host))).ok.body.json
    }

    func google(_ host: String) async throws -> Schemas.GoogleView {
        try await api.getGoogleView(.init(path: .init(host: host))).ok.body.json
    }

    func cdn(_ host: String) async throws -> Schemas.CDNStatus {
        try await api.getCDNStatus(.init(path: .init(host: host))).ok.body.json
    }

    func revisions(_ host: String, cursor: String?) async throws -> Schemas.RevisionPage {
        try await api.listRevisions(.init(path: .init(host: host), query: .init(cursor: cursor, limit: 50))).ok.body
            .json
    }

    func revision(_ host: String, _ number: Int) async throws -> Schemas.Revision {
        try await api.getRevision(.init(path: .init(host: host, number: Int32(clamping: number)))).ok.body.json
    }

    /// A revision's exact bytes, read by the same service the API's `/file` route reads with.
    func revisionBytes(_ host: String, _ number: Int) async throws -> [UInt8] {
        try await api.reads(try api.principal()).revision(host, number: number).revision.bytes
    }

    func diff(_ host: String, from: Int, to: String) async throws -> Schemas.RevisionDiff {
        try await api.diffRevisions(
            .init(path: .init(host: host), query: .init(from: Int32(clamping: from), to: to))
        ).ok.body.json
    }

    func assetLinksRevisions(_ host: String) async throws -> Schemas.RevisionPage {
        try await api.listAssetLinksRevisions(.init(path: .init(host: host), query: .init(limit: 50))).ok.body.json
    }

    func assetLinksDiff(_ host: String, from: Int, to: String) async throws -> Schemas.RevisionDiff {
        try await api.diffAssetLinks(
            .init(path: .init(host: host), query: .init(from: Int32(clamping: from), to: to))
        )
        .ok.body.json
    }

    func match(_ url: String, source: Components.Schemas.MatchRequest.SourcePayload) async throws -> Schemas.MatchResult
    {
        let body = Components.Schemas.MatchRequest(url: url, source: source, explain: true, platform: .both)
        return try await api.matchURL(.init(body: .json(body))).ok.body.json
    }

    func publish(_ host: String, reason: String) async throws -> Schemas.PublishResult {
        let output = try await api.publishDomain(.init(path: .init(host: host), body: .json(.init(reason: reason))))
        switch output {
        case .created(let created): return try created.body.json
        default: return try output.ok.body.json
        }
    }

    /// The publish as it would go, run and rolled back (`?dryRun=true`): nil when it would pass,
    /// else the refusal it would get, every policy included.
    func publishRefusal(_ host: String) async throws -> ServiceError? {
        do {
            _ = try await api.publishDomain(
                .init(
                    path: .init(host: host), query: .init(dryRun: true),
                    body: .json(.init(reason: "console preview"))))
            return nil
        } catch let refusal as ServiceError where refusal.kind != .internal && refusal.kind != .unavailable {
            return refusal
        }
    }

    func rollback(_ host: String, to number: Int, reason: String) async throws -> Schemas.PublishResult {
        let output = try await api.rollbackRevision(
            .init(path: .init(host: host, number: Int32(clamping: number)), body: .json(.init(reason: reason))))
        switch output {
        case .created(let created): return try created.body.json
        default: return try output.ok.body.json
        }
    }

    func probe(_ host: String) async throws -> Schemas.ProbeReport {
        try await api.probeDomain(.init(path: .init(host: host))).ok.body.json
    }

    /// The domain's last origin probe, or nil when it was never probed.
    func lastProbe(_ host: String) async throws -> Schemas.ProbeSummary? {
        do {
            return try await api.getLastProbe(.init(path: .init(host: host))).ok.body.json
        } catch let error as ServiceError where error.kind == .notFound {
            return nil
        }
    }

    func checkCDN(_ host: String) async throws -> Schemas.CDNStatus {
        try await api.checkCDN(.init(path: .init(host: host))).ok.body.json
    }

    /// One page of the audit trail, without each event's `before` and `after` (the page does not
    /// show them, and encoding them was most of its time).
    func audit(_ query: Operations.ListAuditEvents.Input.Query) async throws -> Schemas.AuditPage {
        try await api.auditPage(.init(query: query), payloads: false)
    }

    func teams(cursor: String?) async throws -> Schemas.TeamList {
        try await api.listTeams(.init(query: .init(cursor: cursor, limit: 200))).ok.body.json
    }

    func team(_ name: String) async throws -> Schemas.Team {
        try await api.getTeam(.init(path: .init(team: name))).ok.body.json
    }

    func apps(_ team: String) async throws -> Schemas.AppList {
        try await api.listTeamApps(.init(path: .init(team: team))).ok.body.json
    }

    func teamGrants(_ team: String) async throws -> Schemas.GrantList {
        try await api.listTeamGrants(.init(path: .init(team: team))).ok.body.json
    }

    func tokens(_ team: String) async throws -> Schemas.TokenList {
        try await api.listTokens(.init(path: .init(team: team))).ok.body.json
    }

    /// The organisation's protected paths and the domain's own, as far as this token may read them.
    func protectedPaths(_ host: String) async -> [String] {
        let organisation = try? await api.getGuardrails(.init()).ok.body.json.protectedPaths
        let domain = try? await api.getDomainGuardrails(.init(path: .init(host: host))).ok.body.json.protectedPaths
        return ((organisation ?? []) + (domain ?? [])).uniqued()
    }
}
