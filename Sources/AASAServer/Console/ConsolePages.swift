import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import Hummingbird

/// The console's read pages, each built from the API's own answers (`ConsoleAPI`) as the
/// signed-in principal sees them.
struct ConsolePages {
    typealias Schemas = Components.Schemas

    let api: ConsoleAPI
    let served: WellKnownFiles
    let principal: Principal

    func overview(cursor: String?) async throws -> ConsolePage {
        let list = try await api.domains(cursor: cursor)
        // Each domain's row asks six services at once, and two rows are built at a time: at most
        // twelve reads, each holding a pooled connection (of the default pool of 20), so one
        // overview never starves the API's requests.
        let domains = list.items
        var rows = [OverviewRow?](repeating: nil, count: domains.count)
        try await withThrowingTaskGroup(of: (Int, OverviewRow).self) { group in
            var next = 0
            func start() {
                guard next < domains.count else { return }
                let (i, domain) = (next, domains[next])
                group.addTask { (i, try await overviewRow(domain)) }
                next += 1
            }
            for _ in 0..<2 { start() }
            while let (i, row) = try await group.next() {
                rows[i] = row
                start()
            }
        }
        return ConsolePage(
            "overview", title: "Overview",
            ["domains": try rows.compactMap { try $0?.context() }, "next": list.nextCursor as Any])
    }

    /// One domain of the overview: its list entry, with the draft, Apple's CDN, Google's view, the
    /// last probe, golden URLs and suspensions added.
    struct OverviewRow: Sendable {
        var domain: Schemas.Domain
        var draftDiffers: Bool
        var cdn: Schemas.CDNStatus
        var probe: Schemas.ProbeSummary?
        var check: Schemas.ExpectationCheck
        var suspended: [String]
        var googleStates: [String]

        func context() throws -> [String: Any] {
            var row = try ConsoleAPI.plain(domain)
            row["draftDiffers"] = draftDiffers
            row["cdnState"] = cdn.state.rawValue
            if cdn.state == .stale, let lag = cdn.lagSeconds { row["lag"] = ConsolePages.duration(lag) }
            if let probe {
                var summary = try ConsoleAPI.plain(probe)
                let codes = probe.findings.filter { $0.severity == .error }.map(\.code)
                summary["problems"] =
                    codes.isEmpty ? "not the current revision" : codes.uniqued().joined(separator: ", ")
                row["probe"] = summary
            }
            let broken = check.brokenInDraft + check.brokenWhenPublished
            if broken > 0 { row["broken"] = broken }
            if !suspended.isEmpty { row["suspended"] = suspended.joined(separator: ", ") }
            row["google"] = ConsolePages.googleSummary(googleStates) as Any
            row["googleBad"] = googleStates.contains { $0 != "verified" && $0 != "unknown" }
            return row
        }
    }

    private func overviewRow(_ domain: Schemas.Domain) async throws -> OverviewRow {
        let host = domain.host
        // The row's six reads are independent: asked at once.
        async let differs = api.draftDiffers(host)
        async let cdn = api.cdn(host)
        async let probe = api.lastProbe(host)
        async let check = api.expectations(host)
        async let suspensions = api.suspensions(host)
        async let google = api.google(host)
        return OverviewRow(
            domain: domain, draftDiffers: try await differs, cdn: try await cdn, probe: try await probe,
            check: try await check, suspended: try await suspensions.items.map(\.team),
            googleStates: try await google.packages.map(\.state.rawValue))
    }

    /// Google's view of a domain's packages in a few words: "verified" when all are, else the
    /// count of each state ("1 stale, 1 not-linked"); nil when the domain has no Android app.
    static func googleSummary(_ states: [String]) -> String? {
        guard !states.isEmpty else { return nil }
        if states.allSatisfy({ $0 == "verified" }) { return "verified" }
        let order = ["error", "not-linked", "stale", "unknown", "verified"]
        return order.compactMap { state in
            let n = states.filter { $0 == state }.count
            return n == 0 ? nil : "\(n) \(state)"
        }.joined(separator: ", ")
    }

    func domain(_ host: String) async throws -> ConsolePage {
        let domain = try await api.domain(host)
        let canonical = domain.host
        // The page's reads are independent: asked at once, each on its own pooled connection.
        async let draftRead = api.draft(canonical)
        async let grantsRead = api.grants(canonical)
        async let reportRead = api.report(canonical)
        async let checkRead = api.expectations(canonical)
        async let suspensionsRead = api.suspensions(canonical)
        async let targetsRead = api.targets(canonical)
        async let protectedRead = api.protectedPaths(canonical)
        async let originsRead = api.relatedOrigins(canonical)
        let draft = try await draftRead
        let grants = try await grantsRead.items
        let report = try await reportRead
        // A team without a grant on the domain sees no targets (issue 49: the API answers it 404);
        // any other failure is the page's.
        let targets: [Schemas.DomainTargets.TargetsPayloadPayload]
        do { targets = try await targetsRead.targets } catch let problem as ServiceError where problem.kind == .notFound
        {
            targets = []
        }
        // Rules in the order the draft lists them, as this token may see the draft; a rule is known
        // by its pointer there, which is how the report names shadowed rules.
        let shadowed = Set(report.shadowed.map(\.rule.path))
        var apps: [[String: Any]] = []
        var mapRules: [PathSpaceMap.Rule] = []
        let details = draft.json.objectValue?["applinks"]?.objectValue?["details"]?.arrayValue ?? []
        for (i, detailJSON) in details.enumerated() {
            let detail = detailJSON.objectValue
            let ids =
                detail?["appIDs"]?.arrayValue?.compactMap(\.stringValue)
                ?? detail?["appID"]?.stringValue.map { [$0] } ?? []
            let team: String? = draft.teams.indices.contains(i) ? draft.teams[i] : nil
            let owner = team ?? "another team"
            let components = detail?["components"]?.arrayValue ?? []
            let rules = components.enumerated().map { j, json -> [String: Any] in
                let pointer = "/applinks/details/\(i)/components/\(j)"
                let isShadowed = shadowed.contains(pointer)
                let rule = json.objectValue
                mapRules.append(
                    .init(
                        team: owner, path: rule?["/"]?.stringValue ?? "*",
                        exclude: rule?["exclude"]?.boolValue ?? false,
                        shadowed: isShadowed))
                return [
                    "text": Self.ruleText(json), "comment": rule?["comment"]?.stringValue as Any,
                    "shadowed": isShadowed,
                ]
            }
            let legacy = (detail?["paths"]?.arrayValue ?? []).compactMap(\.stringValue).map {
                ["text": $0] as [String: Any]
            }
            apps.append(["appID": ids.joined(separator: ", "), "team": owner, "rules": rules + legacy])
        }
        let android = draft.android.map { entry, statement -> [String: Any] in
            let relations = statement.relations
            let rules = (statement.dynamicComponents ?? []).map(Self.ruleText)
            return [
                "package": entry.appID, "team": entry.team,
                "relations": relations.map { $0.replacingOccurrences(of: "delegate_permission/common.", with: "") },
                "follows": (entry.rulesOf == entry.appID ? nil : entry.rulesOf) as Any, "rules": rules,
                "manifestDecides": rules.isEmpty && relations.contains(AssetLinksDocument.handleAllURLs),
            ]
        }
        let overlaps = report.overlaps.filter(\.crossTeam).map { o -> [String: Any] in
            let (a, b) = (o.first, o.second)
            return ["text": "\(a.team ?? "?") \(a.path) and \(b.team ?? "?") \(b.path), e.g. \(o.exampleURL)"]
        }
        let golden = try await checkRead.items.map { item -> [String: Any] in
            [
                "url": item.expectation.url, "expected": Self.expected(item.expectation),
                "draft": Self.outcome(item.draft), "draftClass": item.draft.holds ? "ok" : "bad",
                "published": Self.outcome(item.published),
                "publishedClass": (item.published?.holds ?? true) ? "ok" : "bad",
            ]
        }
        let protected = await protectedRead
        let map = PathSpaceMap(
            grants: grants.map { (team: $0.team, prefixes: $0.pathPrefixes) }, rules: mapRules, protected: protected)
        return ConsolePage(
            "domain", title: canonical,
            [
                "host": canonical, "domain": try ConsoleAPI.plain(domain), "apps": apps, "android": android,
                "overlaps": overlaps, "golden": golden, "grants": try ConsoleAPI.plainList(grants),
                "suspensions": try ConsoleAPI.plainList(try await suspensionsRead.items),
                "targets": targets.map(Self.target),
                "map": map.svg(),
                "aasa": served.aasa.file(for: canonical).map { String(decoding: $0.bytes, as: UTF8.self) } as Any,
                "assetLinks": served.assetLinks.file(for: canonical).map { String(decoding: $0.bytes, as: UTF8.self) }
                    as Any,
                "webauthn": served.webauthn.file(for: canonical).map { String(decoding: $0.bytes, as: UTF8.self) }
                    as Any,
                "relatedOrigins": try await originsRead.items.map {
                    ["origin": $0.origin, "label": $0.label, "team": $0.team ?? "an admin"] as [String: Any]
                },
            ], crumbs: [("Overview", "/console/")])
    }

    /// One target as the domain page lists it: what it is, how its last publish went, and every
    /// public URL that did not serve that publish's bytes, with the probe's finding codes.
    static func target(_ entry: Schemas.DomainTargets.TargetsPayloadPayload) -> [String: Any] {
        let target = entry.target
        let last = entry.last
        let name = target.kind == .webRoot ? target.path : target.name
        let edge = (last?.edge ?? []).filter { !$0.servesRevision }.map { e -> [String: Any] in
            ["text": "\(e.url) serves \(e.findings.map(\.code).joined(separator: ", "))"]
        }
        let outcome: String
        switch last?.ok {
        case true?: outcome = "published" + (last?.revision.map { " revision \($0)" } ?? "")
        case false?: outcome = "failed: " + (last?.error ?? "unknown")
        case nil: outcome = "not yet published here"
        }
        return [
            "kind": target.kind.rawValue, "name": name ?? "", "outcome": outcome,
            "outcomeClass": (last?.ok ?? true) ? "ok" : "bad", "edge": edge,
        ]
    }

    func test(_ host: String, url: String?, source: String?) async throws -> ConsolePage {
        let canonical = try await api.domain(host).host
        let draft = source != "published"
        var context: [String: Any] = ["host": canonical, "url": url ?? "https://\(canonical)/", "draft": draft]
        if let url, !url.isEmpty {
            let match = try await api.match(url, source: draft ? .draft : .published)
            var result = try ConsoleAPI.plain(match)
            result["androidOpens"] = match.android?.opens ?? []
            if let explanation = match.explanation {
                var shown = try ConsoleAPI.plain(explanation)
                shown["apps"] = try explanation.apps.map { app -> [String: Any] in
                    var shownApp = try ConsoleAPI.plain(app)
                    shownApp["rules"] = try app.rules.map(Self.explained)
                    return shownApp
                }
                if let closest = explanation.closest { shown["closest"] = try Self.explained(closest) }
                result["explanation"] = shown
            }
            context["result"] = result
        }
        return ConsolePage(
            "test", title: "Test a URL on \(canonical)", context,
            crumbs: [("Overview", "/console/"), (canonical, "/console/domains/\(canonical)")])
    }

    func publishPreview(_ host: String) async throws -> ConsolePage {
        let domain = try await api.domain(host)
        let canonical = domain.host
        // Both files' diffs and the golden URLs are independent reads: asked at once.
        async let iosLines = iosDiffLines(canonical, current: domain.currentRevision)
        async let androidLines = androidDiffLines(canonical)
        async let checkRead = api.expectations(canonical)
        let broken = try await checkRead.items.filter { !$0.draft.holds }.map {
            ["url": $0.expectation.url, "draft": Self.outcome($0.draft)]
        }
        let (lines, android) = try await (iosLines, androidLines)
        // The publish itself, run and rolled back: the preview shows the refusal the button would
        // get (every policy: protected paths, environment isolation, golden URLs, validation).
        let refusal = principal.canWrite ? try await api.publishRefusal(canonical) : nil
        return ConsolePage(
            "publish", title: "Publish \(canonical)",
            [
                "host": canonical, "diffLines": lines, "androidDiffLines": android, "broken": broken,
                "canPublish": principal.canWrite,
                "refusal": refusal.map {
                    ConsoleRoutes.problemContext(
                        $0, status: ProblemResponse.status($0.kind).code,
                        requestID: RequestState.current?.requestID ?? "-")
                } as Any,
            ],
            crumbs: [("Overview", "/console/"), (canonical, "/console/domains/\(canonical)")])
    }

    /// The AASA's diff from the current revision to the draft, for the Publish page.
    private func iosDiffLines(_ host: String, current: Int?) async throws -> [String] {
        guard let current else { return ["the first revision: every rule is new"] }
        return Self.diffLines(try await api.diff(host, from: current, to: "draft"))
    }

    /// assetlinks.json's diff from its current revision to the draft, for the Publish page.
    private func androidDiffLines(_ host: String) async throws -> [String] {
        if let current = try await api.assetLinksRevisions(host).items.first?.number {
            return Self.androidDiffLines(try await api.assetLinksDiff(host, from: current, to: "draft"))
        }
        let none = try await api.draft(host).android.isEmpty
        return none ? [] : ["the first assetlinks.json revision: every statement is new"]
    }

    func published(_ host: String, _ answer: Schemas.PublishResult) throws -> ConsolePage {
        var result = try ConsoleAPI.plain(answer)
        result["targets"] = try answer.targets.map { target -> [String: Any] in
            var shown = try ConsoleAPI.plain(target)
            shown["outcome"] = target.ok ? "written" : "failed"
            return shown
        }
        return ConsolePage(
            "published", title: "Published \(host)", ["host": host, "result": result],
            crumbs: [("Overview", "/console/"), (host, "/console/domains/\(host)")])
    }

    /// Both files' revisions; `android` says which file's revisions `diffFrom` and `diffTo` name.
    func revisions(_ host: String, cursor: String?, diffFrom: Int?, diffTo: String?, android: Bool = false)
        async throws -> ConsolePage
    {
        let canonical = try await api.domain(host).host
        let page = try await api.revisions(canonical, cursor: cursor)
        var context: [String: Any] = [
            "host": canonical, "items": try ConsoleAPI.plainList(page.items), "next": page.nextCursor as Any,
            "androidItems": try ConsoleAPI.plainList(try await api.assetLinksRevisions(canonical).items),
            // Both present even when empty: Mustache's `empty()` of an absent list is not empty, and
            // would draw an empty diff box.
            "diffLines": [String](), "androidDiffLines": [String](),
        ]
        if let diffFrom, let diffTo {
            // The form shows the numbers it was given.
            context[android ? "androidFrom" : "diffFrom"] = diffFrom
            context[android ? "androidTo" : "diffTo"] = diffTo
            context[android ? "androidDiffLines" : "diffLines"] =
                android
                ? try await Self.androidDiffLines(api.assetLinksDiff(canonical, from: diffFrom, to: diffTo))
                : try await Self.diffLines(api.diff(canonical, from: diffFrom, to: diffTo))
        }
        return ConsolePage(
            "revisions", title: "Revisions of \(canonical)", context,
            crumbs: [("Overview", "/console/"), (canonical, "/console/domains/\(canonical)")])
    }

    func revision(_ host: String, _ number: Int) async throws -> ConsolePage {
        let revision = try await api.revision(host, number)
        let canonical = revision.host
        let bytes = try await api.revisionBytes(canonical, number)
        return ConsolePage(
            "revision", title: "Revision \(number) of \(canonical)",
            [
                "host": canonical, "revision": try ConsoleAPI.plain(revision),
                "bytes": String(decoding: bytes, as: UTF8.self),
                "diffLines": revision.diff.flatMap(Self.json).map { DocumentDiff.textLines(json: $0) } ?? [],
                "canPublish": principal.canWrite,
            ],
            crumbs: [
                ("Overview", "/console/"), (canonical, "/console/domains/\(canonical)"),
                ("Revisions", "/console/domains/\(canonical)/revisions"),
            ])
    }

    func rollbackPreview(_ host: String, to number: Int) async throws -> ConsolePage {
        let domain = try await api.domain(host)
        let canonical = domain.host
        var lines: [String] = []
        if let current = domain.currentRevision {
            // The diff from the current revision to the one rolled back to: `to` is that revision.
            lines = try await Self.diffLines(api.diff(canonical, from: current, to: String(number)))
        }
        return ConsolePage(
            "rollback", title: "Roll \(canonical) back to revision \(number)",
            ["host": canonical, "number": number, "diffLines": lines],
            crumbs: [
                ("Overview", "/console/"), (canonical, "/console/domains/\(canonical)"),
                ("Revisions", "/console/domains/\(canonical)/revisions"),
            ])
    }

    func apple(_ host: String, findings: [[String: Any]] = [], fetched: String? = nil) async throws -> ConsolePage {
        let cdn = try await api.cdn(host)
        let canonical = cdn.host
        let timeline = CDNTimeline(history: cdn.history.map { (at: $0.at, state: $0.state, revision: $0.revision) })
        let google = try await api.google(canonical)
        return ConsolePage(
            "apple", title: "Apple's and Google's view of \(canonical)",
            [
                "host": canonical, "cdn": try ConsoleAPI.plain(cdn), "timeline": timeline.svg(),
                "canFetch": principal.canWrite, "google": try ConsoleAPI.plainList(google.packages),
                "googleHistory": try ConsoleAPI.plainList(google.history),
                "findings": findings, "fetched": fetched as Any,
            ],
            crumbs: [("Overview", "/console/"), (canonical, "/console/domains/\(canonical)")])
    }

    func teams() async throws -> ConsolePage {
        ConsolePage(
            "teams", title: "Teams", ["items": try ConsoleAPI.plainList(try await api.teams(cursor: nil).items)])
    }

    func team(_ name: String) async throws -> ConsolePage {
        let team = try await api.team(name)
        return ConsolePage(
            "team", title: "Team \(team.name)",
            [
                "team": try ConsoleAPI.plain(team), "apps": try ConsoleAPI.plainList(try await api.apps(name).items),
                "grants": try ConsoleAPI.plainList(try await api.teamGrants(name).items),
                "tokens": try ConsoleAPI.plainList(try await api.tokens(name).items),
            ], crumbs: [("Teams", "/console/teams")])
    }

    func audit(_ filter: [String: String]) async throws -> ConsolePage {
        // The API's own bound on dates (issue 49): a day outside years 0001-9999 is 400 naming it.
        func day(_ key: String) throws -> Date? {
            guard let text = filter[key], !text.isEmpty else { return nil }
            do { return try BoundedDateTranscoder().decode(text + "T00:00:00Z") } catch {
                throw ServiceError.badRequest(
                    "\(key) is a day in years 0001-9999, like 2026-11-28", field: key, rule: "date-range")
            }
        }
        func given(_ key: String) -> String? { filter[key].flatMap { $0.isEmpty ? nil : $0 } }
        let page = try await api.audit(
            .init(
                team: given("team"), domain: given("domain"), action: given("action"), since: try day("since"),
                until: try day("until").map { $0.addingTimeInterval(86_400) }, cursor: given("cursor"), limit: 50))
        var next: String?
        if let cursor = page.nextCursor {
            var query = filter.filter { !$0.value.isEmpty && $0.key != "cursor" }
            query["cursor"] = cursor
            next = "/console/audit?" + (try URLEncodedFormEncoder().encode(query))
        }
        return ConsolePage(
            "audit", title: "Audit",
            ["items": try ConsoleAPI.plainList(page.items), "filter": filter, "next": next as Any])
    }

    // MARK: - Shaping the API's JSON for people

    /// A rule as its JSON, minus the ID and comment the page shows apart.
    static func ruleText(_ rule: JSONValue) -> String {
        guard let object = rule.objectValue else { return "" }
        let shown = JSONObject(object.members.filter { $0.key != "id" && $0.key != "comment" })
        return JSONWriter(style: .compact).string(JSONValue.object(shown).keyOrdered)
    }

    static func explained(_ rule: Schemas.ExplainedRule) throws -> [String: Any] {
        var shown = try ConsoleAPI.plain(rule)
        let component = rule.component.map { " at \($0)" } ?? ""
        let subject = rule.subject.map { " (\"\($0)\")" } ?? ""
        shown["text"] = rule.pointer + (rule.pattern.map { " " + $0 } ?? "")
        shown["outcome"] = "\(rule.result.rawValue)\(component)\(subject)"
        return shown
    }

    static func expected(_ expectation: Schemas.Expectation) -> String {
        switch expectation.kind {
        case .opens: "opens \(expectation.appID ?? "?")"
        case .notApp: "does not open \(expectation.appID ?? "?")"
        case .opensNone: "opens no app"
        }
    }

    /// An expectation's outcome in words; one not evaluated yet (never published) holds.
    static func outcome(_ outcome: Schemas.ExpectationOutcome?) -> String {
        let app = outcome?.appID.map { "opens \($0)" } ?? "no app"
        return ((outcome?.holds ?? true) ? "holds: " : "broken: ") + app
    }

    /// The API's diff as `aasactl diff` prints it (`DocumentDiff.textLines`).
    static func diffLines(_ answer: Schemas.RevisionDiff) -> [String] {
        json(answer.diff).map { DocumentDiff.textLines(json: $0) } ?? []
    }

    /// The API's assetlinks.json diff as `aasactl diff --android` prints it: per app, then the URLs
    /// a package decides differently.
    static func androidDiffLines(_ answer: Schemas.RevisionDiff) -> [String] {
        AssetLinksDiff.textLines(json: json(answer.diff) ?? .array([]))
            + AndroidDecisionChanges.textLines(json: answer.urlChanges.flatMap(Self.json) ?? .array([]))
    }

    /// A part of an API answer, back in our JSON for the model's text renderers.
    private static func json(_ value: some Encodable) -> JSONValue? {
        guard let data = try? JSONEncoder().encode(value) else { return nil }
        return try? JSONParser.parse(Array(data)).value
    }

    static func duration(_ seconds: Int) -> String {
        seconds >= 3600 ? "\(seconds / 3600) h \(seconds % 3600 / 60) min" : "\(seconds / 60) min \(seconds % 60) s"
    }
}
