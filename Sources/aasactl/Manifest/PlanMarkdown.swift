import AASAAPI
import AASAModel

/// A plan written for a pull request's reviewer (`aasactl plan --format markdown`, `--comment`):
/// per domain, the rule sets changing, the rules gained and lost per app, the URLs whose opening
/// app changes (a few representative ones, the count of the rest, and all of them folded in a
/// `<details>` block), golden URL changes, warnings, and the publish an apply would make. A
/// refused plan says why. The hidden marker lets a later run find and edit the same comment.
enum PlanMarkdown {
    static func marker(team: String, environment: String?) -> String {
        "<!-- aasactl-plan team=\(team)\(environment.map { " env=\($0)" } ?? "") -->"
    }

    /// How many URLs are shown per change of opening app before the rest are folded away.
    static let representatives = 3

    static func plan(_ result: ManifestResult, team: String, environment: String?, publish: Bool) -> String {
        var out = [
            marker(team: team, environment: environment), "### apple-app-site-association plan: team `\(team)`", "",
        ]
        let apps = result.apps.filter { $0.action != .unchanged }
        guard result.changed else {
            out.append("No changes: the server already matches the manifest.")
            return out.joined(separator: "\n") + "\n"
        }
        let changedDomains = result.domains.filter(\.changed)
        out.append(
            "**\(changedDomains.count) domain(s) change**"
                + (apps.isEmpty ? "" : ", \(apps.count) app(s) created or updated")
                + ".")
        for app in apps {
            let action = app.action == .create ? "created" : "updated"
            out.append("- app `\(app.appID)` \(action) (\(ContractAnswer.cell(app.services.map(\.rawValue))))")
        }
        for domain in changedDomains { out += [""] + section(domain, publish: publish) }
        return out.joined(separator: "\n") + "\n"
    }

    static func section(_ domain: Components.Schemas.ManifestDomainResult, publish: Bool) -> [String] {
        let environment = domain.environment.map { $0 == "default" ? "" : " (\($0))" } ?? ""
        var out = ["#### \(domain.host)\(environment)", ""]
        let ruleSets = domain.rules.filter { $0.action != .unchanged }
        if !ruleSets.isEmpty {
            out += ["| App | Rules before | Rules after | |", "|---|---:|---:|---|"]
            for r in ruleSets {
                out.append("| `\(r.appID)` | \(r.rulesBefore) | \(r.rulesAfter) | \(r.action.rawValue) |")
            }
            out.append("")
        }
        // The diff is AASAModel's `DocumentDiff`, free-form in the contract: read as its JSON.
        let diff = domain.diff.flatMap(ContractAnswer.json)?.objectValue ?? [:]
        for change in diff["rules"]?.arrayValue ?? [] {
            let c = change.objectValue ?? [:]
            let text = { (r: JSONValue) in r.objectValue?["rule"].map { JSONWriter().string($0) } ?? "?" }
            let lines =
                (c["removed"]?.arrayValue ?? []).map { "  - lost `\(text($0))`" }
                + (c["added"]?.arrayValue ?? []).map { "  - gained `\(text($0))`" }
            if !lines.isEmpty { out += ["- `\(c["appID"]?.stringValue ?? "?")`:"] + lines }
        }
        out += openers(diff["openerChanges"]?.arrayValue ?? [])
        out += android(domain.androidChanges.flatMap(ContractAnswer.json)?.arrayValue ?? [])
        let expectations = (domain.expectations ?? []).filter { $0.action != .unchanged }
        if !expectations.isEmpty {
            out += ["", "**Golden URLs**"]
            for e in expectations {
                let target = Expectations.target(kind: e.kind.rawValue, appID: e.appID)
                out.append("- \(e.action.rawValue) `\(e.url)` \(target)")
            }
        }
        if let origins = domain.relatedOrigins, !(origins.added.isEmpty && origins.removed.isEmpty) {
            out += ["", "**Related origins** (`/.well-known/webauthn`)"]
            out += origins.added.map { "- added `\($0)`" } + origins.removed.map { "- removed `\($0)`" }
        }
        if !domain.warnings.isEmpty {
            out += ["", "**Warnings**"]
            for w in domain.warnings { out.append("- \(w.code): \(w.message)") }
        }
        out += [
            "",
            publish
                ? "_On apply: a new revision is published at once._"
                : "_On apply: the draft changes; a publish makes it live._",
        ]
        return out
    }

    /// The URLs whose opening app changes on iOS, grouped by change (browser → app, app → app).
    static func openers(_ changes: [JSONValue]) -> [String] {
        func opener(_ v: JSONValue?) -> String { v?.stringValue.map { "`\($0)`" } ?? "browser" }
        let items = changes.map { c -> (url: String, change: String) in
            let o = c.objectValue ?? [:]
            return (o["url"]?.stringValue ?? "?", "\(opener(o["before"])) → \(opener(o["after"]))")
        }
        return grouped(items, title: "**URLs whose opening app changes** (iOS)", all: "URLs")
    }

    /// The URLs whose outcome on Android changes, grouped per package and change.
    static func android(_ changes: [JSONValue]) -> [String] {
        let items = changes.map { c -> (url: String, change: String) in
            let o = c.objectValue ?? [:]
            let text = { (key: String) in o[key]?.stringValue ?? "?" }
            return (text("url"), "`\(text("packageName"))` \(text("before")) → \(text("after"))")
        }
        return grouped(items, title: "**URLs whose outcome changes** (Android)", all: "Android changes")
    }

    /// Changes grouped by what changed: the plainest few URLs of each group shown, the rest
    /// counted, and every one of them in a `<details>` block.
    static func grouped(_ items: [(url: String, change: String)], title: String, all: String) -> [String] {
        guard !items.isEmpty else { return [] }
        var groups: [(change: String, urls: [String])] = []
        for item in items {
            if let i = groups.firstIndex(where: { $0.change == item.change }) {
                groups[i].urls.append(item.url)
            } else {
                groups.append((item.change, [item.url]))
            }
        }
        var out = ["", "\(title): \(items.count)"]
        for group in groups {
            let picked = plainest(group.urls)
            out.append(
                "- \(group.change): " + picked.map { "`\($0)`" }.joined(separator: ", ")
                    + (group.urls.count > picked.count ? " and \(group.urls.count - picked.count) more" : ""))
        }
        out += ["", "<details><summary>All \(items.count) \(all)</summary>", ""]
        out += items.map { "- `\($0.url)`: \($0.change)" }
        return out + ["", "</details>"]
    }

    /// The few URLs a reviewer would pick: no `//`, shortest first.
    static func plainest(_ urls: [String]) -> ArraySlice<String> {
        urls.sorted { ($0.contains("//") ? 1 : 0, $0.count, $0) < ($1.contains("//") ? 1 : 0, $1.count, $1) }
            .prefix(representatives)
    }

    /// A refused plan: why, each field and violation named.
    static func refused(_ failure: APIFailure, manifest: ManifestFile, team: String, environment: String?) -> String {
        var out = [
            marker(team: team, environment: environment), "### apple-app-site-association plan: team `\(team)`", "",
            "**The server refuses this manifest**: \(failure.title) (HTTP \(failure.status))",
        ]
        if let detail = failure.detail { out += ["", detail] }
        if !failure.errors.isEmpty { out.append("") }
        for e in failure.errors { out.append("- \(manifest.describe(e.field)): \(e.message) [`\(e.rule)`]") }
        return out.joined(separator: "\n") + "\n"
    }
}
