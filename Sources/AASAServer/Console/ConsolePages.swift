import AASAAPI
import AASACore
import AASAModel
import Foundation
import Hummingbird

/// The console's read pages, each built from the API's own answers (`ConsoleAPI`) as the
/// signed-in principal sees them.
struct ConsolePages {
    let api: ConsoleAPI
    let served: WellKnownFiles
    let principal: Principal

    func overview(cursor: String?) async throws -> ConsolePage {
        let list = try await api.domains(cursor: cursor)
        // Each domain's row asks six services at once, and two rows are built at a time: at most
        // twelve reads, each holding a pooled connection (of the default pool of 20), so one
        // overview never starves the API's requests.
        let domains = list.list("items")
        var rows = [PlainJSON?](repeating: nil, count: domains.count)
        try await withThrowingTaskGroup(of: (Int, PlainJSON).self) { group in
            var next = 0
            func start() {
                guard next < domains.count else { return }
                let (i, domain) = (next, PlainJSON(domains[next]))
                group.addTask { (i, PlainJSON(try await overviewRow(domain.value))) }
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
            ["domains": rows.compactMap { $0?.value }, "next": list.string("nextCursor") as Any])
    }

    /// One domain of the overview: its list entry, with the draft, Apple's CDN, Google's view, the
    /// last probe, golden URLs and suspensions added.
    private func overviewRow(_ domain: [String: Any]) async throws -> [String: Any] {
        let host = domain.string("host") ?? ""
        var row = domain
        // The row's six reads are independent: asked at once.
        async let differs = api.draftDiffers(host)
        async let cdnRead = PlainJSON(api.cdn(host))
        async let probeRead = api.lastProbe(host).map(PlainJSON.init)
        async let checkRead = PlainJSON(api.expectations(host))
        async let suspensionsRead = PlainJSON(api.suspensions(host))
        async let googleRead = PlainJSON(api.google(host))
        row["draftDiffers"] = try await differs
        let cdn = try await cdnRead.value
        row["cdnState"] = cdn.string("state") ?? "unknown"
        if cdn.string("state") == "stale", let lag = cdn.int("lagSeconds") { row["lag"] = Self.duration(lag) }
        if var probe = try await probeRead?.value {
            let codes = probe.list("findings").filter { $0.string("severity") == "error" }.compactMap {
                $0.string("code")
            }
            probe["problems"] = codes.isEmpty ? "not the current revision" : codes.uniqued().joined(separator: ", ")
            row["probe"] = probe
        }
        let check = try await checkRead.value
        let broken = (check.int("brokenInDraft") ?? 0) + (check.int("brokenWhenPublished") ?? 0)
        if broken > 0 { row["broken"] = broken }
        let suspended = try await suspensionsRead.value.list("items").compactMap { $0.string("team") }
        if !suspended.isEmpty { row["suspended"] = suspended.joined(separator: ", ") }
        let states = try await googleRead.value.list("packages").compactMap { $0.string("state") }
        row["google"] = Self.googleSummary(states) as Any
        row["googleBad"] = states.contains { $0 != "verified" && $0 != "unknown" }
        return row
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
        let canonical = domain.string("host") ?? host
        // The page's reads are independent: asked at once, each on its own pooled connection.
        async let draftRead = api.draft(canonical)
        async let grantsRead = PlainJSON(api.grants(canonical))
        async let reportRead = PlainJSON(api.report(canonical))
        async let checkRead = PlainJSON(api.expectations(canonical))
        async let suspensionsRead = PlainJSON(api.suspensions(canonical))
        async let targetsRead = PlainJSON(api.targets(canonical))
        async let protectedRead = api.protectedPaths(canonical)
        let draft = try await draftRead
        let grants = try await grantsRead.value.list("items")
        let report = try await reportRead.value
        // Rules in the order the draft lists them, as this token may see the draft; a rule is known
        // by its pointer there, which is how the report names shadowed rules.
        let shadowed = Set(report.list("shadowed").compactMap { $0.object("rule").string("path") })
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
        let overlaps = report.list("overlaps").filter { $0["crossTeam"] as? Bool ?? false }.map { o -> [String: Any] in
            let a = o.object("first")
            let b = o.object("second")
            let text =
                "\(a.string("team") ?? "?") \(a.string("path") ?? "") and \(b.string("team") ?? "?") "
                + "\(b.string("path") ?? ""), e.g. \(o.string("exampleURL") ?? "")"
            return ["text": text]
        }
        let check = try await checkRead.value
        let golden = check.list("items").map { item -> [String: Any] in
            let e = item.object("expectation")
            let draft = item.object("draft")
            let published = item.object("published")
            return [
                "url": e.string("url") ?? "", "expected": Self.expected(e),
                "draft": Self.outcome(draft), "draftClass": (draft["holds"] as? Bool ?? true) ? "ok" : "bad",
                "published": Self.outcome(published),
                "publishedClass": (published["holds"] as? Bool ?? true) ? "ok" : "bad",
            ]
        }
        let protected = await protectedRead
        let map = PathSpaceMap(
            grants: grants.map { (team: $0.string("team") ?? "?", prefixes: $0["pathPrefixes"] as? [String] ?? []) },
            rules: mapRules, protected: protected)
        return ConsolePage(
            "domain", title: canonical,
            [
                "host": canonical, "domain": domain, "apps": apps, "android": android, "overlaps": overlaps,
                "golden": golden,
                "grants": grants, "suspensions": try await suspensionsRead.value.list("items"),
                "targets": try await targetsRead.value.list("targets").map(Self.target),
                "map": map.svg(),
                "aasa": served.aasa.file(for: canonical).map { String(decoding: $0.bytes, as: UTF8.self) } as Any,
                "assetLinks": served.assetLinks.file(for: canonical).map { String(decoding: $0.bytes, as: UTF8.self) }
                    as Any,
            ], crumbs: [("Overview", "/console/")])
    }

    /// One target as the domain page lists it: what it is, how its last publish went, and every
    /// public URL that did not serve that publish's bytes, with the probe's finding codes.
    static func target(_ entry: [String: Any]) -> [String: Any] {
        let target = entry.object("target")
        let last = entry.object("last")
        let name = target.string("kind") == "webRoot" ? target.string("path") : target.string("name")
        let edge = last.list("edge").filter { $0["servesRevision"] as? Bool == false }.map { e -> [String: Any] in
            let codes = e.list("findings").compactMap { $0["code"] as? String }
            return ["text": "\(e.string("url") ?? "") serves \(codes.joined(separator: ", "))"]
        }
        let outcome: String
        switch last["ok"] as? Bool {
        case true?: outcome = "published" + ((last["revision"] as? Int).map { " revision \($0)" } ?? "")
        case false?: outcome = "failed: " + (last.string("error") ?? "unknown")
        case nil: outcome = "not yet published here"
        }
        return [
            "kind": target.string("kind") ?? "", "name": name ?? "", "outcome": outcome,
            "outcomeClass": (last["ok"] as? Bool ?? true) ? "ok" : "bad", "edge": edge,
        ]
    }

    func test(_ host: String, url: String?, source: String?) async throws -> ConsolePage {
        let canonical = try await api.domain(host).string("host") ?? host
        let draft = source != "published"
        var context: [String: Any] = ["host": canonical, "url": url ?? "https://\(canonical)/", "draft": draft]
        if let url, !url.isEmpty {
            var result = try await api.match(url, source: draft ? .draft : .published)
            result["androidOpens"] = result.object("android")["opens"] as? [String] ?? []
            var explanation = result.object("explanation")
            explanation["apps"] = explanation.list("apps").map { app -> [String: Any] in
                var app = app
                app["rules"] = app.list("rules").map(Self.explained)
                return app
            }
            if !explanation.object("closest").isEmpty {
                explanation["closest"] = Self.explained(explanation.object("closest"))
            }
            result["explanation"] = explanation
            context["result"] = result
        }
        return ConsolePage(
            "test", title: "Test a URL on \(canonical)", context,
            crumbs: [("Overview", "/console/"), (canonical, "/console/domains/\(canonical)")])
    }

    func publishPreview(_ host: String) async throws -> ConsolePage {
        let domain = try await api.domain(host)
        let canonical = domain.string("host") ?? host
        // Both files' diffs and the golden URLs are independent reads: asked at once.
        async let iosLines = iosDiffLines(canonical, current: domain.int("currentRevision"))
        async let androidLines = androidDiffLines(canonical)
        async let checkRead = PlainJSON(api.expectations(canonical))
        let broken = try await checkRead.value.list("items").filter {
            !($0.object("draft")["holds"] as? Bool ?? true)
        }.map { ["url": $0.object("expectation").string("url") ?? "", "draft": Self.outcome($0.object("draft"))] }
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
                        $0, status: ProblemMiddleware.status($0.kind).code,
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
        if let current = try await api.assetLinksRevisions(host).list("items").first?.int("number") {
            return Self.androidDiffLines(try await api.assetLinksDiff(host, from: current, to: "draft"))
        }
        let none = try await api.draft(host).android.isEmpty
        return none ? [] : ["the first assetlinks.json revision: every statement is new"]
    }

    func published(_ host: String, _ result: [String: Any]) -> ConsolePage {
        var result = result
        result["targets"] = result.list("targets").map { t -> [String: Any] in
            var t = t
            t["outcome"] = (t["ok"] as? Bool ?? false) ? "written" : "failed"
            return t
        }
        return ConsolePage(
            "published", title: "Published \(host)", ["host": host, "result": result],
            crumbs: [("Overview", "/console/"), (host, "/console/domains/\(host)")])
    }

    /// Both files' revisions; `android` says which file's revisions `diffFrom` and `diffTo` name.
    func revisions(_ host: String, cursor: String?, diffFrom: Int?, diffTo: String?, android: Bool = false)
        async throws -> ConsolePage
    {
        let canonical = try await api.domain(host).string("host") ?? host
        let page = try await api.revisions(canonical, cursor: cursor)
        var context: [String: Any] = [
            "host": canonical, "items": page.list("items"), "next": page["nextCursor"] as Any,
            "androidItems": try await api.assetLinksRevisions(canonical).list("items"),
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
        let canonical = revision.string("host") ?? host
        let bytes = try await api.revisionBytes(canonical, number)
        return ConsolePage(
            "revision", title: "Revision \(number) of \(canonical)",
            [
                "host": canonical, "revision": revision, "bytes": String(decoding: bytes, as: UTF8.self),
                "diffLines": Self.diffLines(revision["diff"] as? [String: Any] ?? [:], wrapped: false),
                "canPublish": principal.canWrite,
            ],
            crumbs: [
                ("Overview", "/console/"), (canonical, "/console/domains/\(canonical)"),
                ("Revisions", "/console/domains/\(canonical)/revisions"),
            ])
    }

    func rollbackPreview(_ host: String, to number: Int) async throws -> ConsolePage {
        let domain = try await api.domain(host)
        let canonical = domain.string("host") ?? host
        var lines: [String] = []
        if let current = domain.int("currentRevision") {
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
        let canonical = cdn.string("host") ?? host
        let timeline = CDNTimeline(history: cdn.list("history")).svg()
        let google = try await api.google(canonical)
        return ConsolePage(
            "apple", title: "Apple's and Google's view of \(canonical)",
            [
                "host": canonical, "cdn": cdn, "timeline": timeline, "canFetch": principal.canWrite,
                "google": google.list("packages"), "googleHistory": google.list("history"),
                "findings": findings, "fetched": fetched as Any,
            ],
            crumbs: [("Overview", "/console/"), (canonical, "/console/domains/\(canonical)")])
    }

    func teams() async throws -> ConsolePage {
        ConsolePage("teams", title: "Teams", ["items": try await api.teams(cursor: nil).list("items")])
    }

    func team(_ name: String) async throws -> ConsolePage {
        let team = try await api.team(name)
        return ConsolePage(
            "team", title: "Team \(team.string("name") ?? name)",
            [
                "team": team, "apps": try await api.apps(name).list("items"),
                "grants": try await api.teamGrants(name).list("items"),
                "tokens": try await api.tokens(name).list("items"),
            ], crumbs: [("Teams", "/console/teams")])
    }

    func audit(_ filter: [String: String]) async throws -> ConsolePage {
        func day(_ text: String?) -> Date? {
            guard let text, !text.isEmpty else { return nil }
            return ISO8601DateFormatter().date(from: text + "T00:00:00Z")
        }
        func given(_ key: String) -> String? { filter[key].flatMap { $0.isEmpty ? nil : $0 } }
        let page = try await api.audit(
            .init(
                team: given("team"), domain: given("domain"), action: given("action"), since: day(filter["since"]),
                until: day(filter["until"]).map { $0.addingTimeInterval(86_400) }, cursor: given("cursor"), limit: 50))
        var next: String?
        if let cursor = page.string("nextCursor") {
            var query = filter.filter { !$0.value.isEmpty && $0.key != "cursor" }
            query["cursor"] = cursor
            next = "/console/audit?" + (try URLEncodedFormEncoder().encode(query))
        }
        return ConsolePage(
            "audit", title: "Audit", ["items": page.list("items"), "filter": filter, "next": next as Any])
    }

    // MARK: - Shaping the API's JSON for people

    /// A rule as its JSON, minus the ID and comment the page shows apart.
    static func ruleText(_ rule: JSONValue) -> String {
        guard let object = rule.objectValue else { return "" }
        let shown = JSONObject(object.members.filter { $0.key != "id" && $0.key != "comment" })
        return JSONWriter(style: .compact).string(JSONValue.object(shown).keyOrdered)
    }

    static func explained(_ rule: [String: Any]) -> [String: Any] {
        var rule = rule
        let component = rule.string("component").map { " at \($0)" } ?? ""
        let subject = rule.string("subject").map { " (\"\($0)\")" } ?? ""
        rule["text"] = "\(rule.string("pointer") ?? "")\(rule.string("pattern").map { " " + $0 } ?? "")"
        rule["outcome"] = "\(rule.string("result") ?? "")\(component)\(subject)"
        return rule
    }

    static func expected(_ expectation: [String: Any]) -> String {
        switch expectation.string("kind") {
        case "opens": "opens \(expectation.string("appID") ?? "?")"
        case "notApp": "does not open \(expectation.string("appID") ?? "?")"
        default: "opens no app"
        }
    }

    static func outcome(_ outcome: [String: Any]) -> String {
        let holds = outcome["holds"] as? Bool ?? true
        let app = outcome.string("appID").map { "opens \($0)" } ?? "no app"
        return (holds ? "holds: " : "broken: ") + app
    }

    /// The API's diff as `aasactl diff` prints it (`DocumentDiff.textLines`).
    static func diffLines(_ answer: [String: Any], wrapped: Bool = true) -> [String] {
        guard let json = json(wrapped ? answer.object("diff") : answer) else { return [] }
        return DocumentDiff.textLines(json: json)
    }

    /// The API's assetlinks.json diff as `aasactl diff --android` prints it: per app, then the URLs
    /// a package decides differently.
    static func androidDiffLines(_ answer: [String: Any]) -> [String] {
        AssetLinksDiff.textLines(json: json(answer["diff"]) ?? .array([]))
            + AndroidDecisionChanges.textLines(json: json(answer["urlChanges"]) ?? .array([]))
    }

    /// A part of an API answer, back in our JSON for the model's text renderers.
    private static func json(_ value: Any?) -> JSONValue? {
        guard let value, let data = try? JSONSerialization.data(withJSONObject: value) else { return nil }
        return try? JSONParser.parse(Array(data)).value
    }

    static func duration(_ seconds: Int) -> String {
        seconds >= 3600 ? "\(seconds / 3600) h \(seconds % 3600 / 60) min" : "\(seconds / 60) min \(seconds % 60) s"
    }
}
