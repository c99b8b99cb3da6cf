/// What changes between two documents, in the terms a reviewer cares about: which app gains or
/// loses which rule, which services list which apps, and example URLs whose opening app changes.
public struct DocumentDiff: Sendable {
    /// One rule as an app sees it: defaults applied, rendered as canonical JSON
    /// (`paths` rules as `{"paths": "…"}`).
    public struct Rule: Sendable, Hashable {
        public var text: String
        public var location: RuleLocation
    }

    public struct AppRules: Sendable {
        public var appID: String
        public var added: [Rule]
        public var removed: [Rule]
    }

    public struct ServiceApps: Sendable {
        public var service: String
        public var added: [String]
        public var removed: [String]
    }

    public struct OpenerChange: Sendable, Hashable {
        public var url: String
        public var before: String?
        public var after: String?
    }

    public var appsAdded: [String] = []
    public var appsRemoved: [String] = []
    public var appOrderChanged = false
    public var rules: [AppRules] = []
    public var services: [ServiceApps] = []
    /// Other changes, as sentences (defaults, substitution variables).
    public var settings: [String] = []
    public var openerChanges: [OpenerChange] = []

    public var isEmpty: Bool {
        appsAdded.isEmpty && appsRemoved.isEmpty && !appOrderChanged && rules.isEmpty && services.isEmpty
            && settings.isEmpty && openerChanges.isEmpty
    }

    public init(from old: AASADocument, to new: AASADocument, host: String = "example.com", maxExamples: Int = 50) {
        let before = AASAMatcher(old)
        let after = AASAMatcher(new)
        appsAdded = after.appIDs.filter { !before.appIDs.contains($0) }
        appsRemoved = before.appIDs.filter { !after.appIDs.contains($0) }
        appOrderChanged = before.appIDs.filter(after.appIDs.contains) != after.appIDs.filter(before.appIDs.contains)
        for app in before.appIDs + appsAdded {
            let a = DocumentDiff.rules(of: app, in: before)
            let b = DocumentDiff.rules(of: app, in: after)
            let (removed, added) = DocumentDiff.sequenceDiff(a, b)
            if !removed.isEmpty || !added.isEmpty { rules.append(AppRules(appID: app, added: added, removed: removed)) }
        }
        let servicePairs: [(String, [String]?, [String]?)] = [
            ("webcredentials", old.webcredentials?.apps, new.webcredentials?.apps),
            ("appclips", old.appclips?.apps, new.appclips?.apps),
            ("activitycontinuation", old.activitycontinuation?.apps, new.activitycontinuation?.apps),
        ]
        for (name, a, b) in servicePairs {
            let a = a ?? []
            let b = b ?? []
            let added = b.filter { !a.contains($0) }
            let removed = a.filter { !b.contains($0) }
            if !added.isEmpty || !removed.isEmpty {
                services.append(ServiceApps(service: name, added: added, removed: removed))
            }
        }
        if old.applinks?.defaults != new.applinks?.defaults {
            settings.append(
                """
                applinks.defaults changed from \(DocumentDiff.text(old.applinks?.defaults?.jsonValue)) to \
                \(DocumentDiff.text(new.applinks?.defaults?.jsonValue))
                """
            )
        }
        let oldVariables = Dictionary(
            (old.applinks?.substitutionVariables ?? []).map { ($0.name, $0.values) }, uniquingKeysWith: { $1 })
        let newVariables = Dictionary(
            (new.applinks?.substitutionVariables ?? []).map { ($0.name, $0.values) }, uniquingKeysWith: { $1 })
        for name in Set(oldVariables.keys).union(newVariables.keys).sorted()
        where oldVariables[name] != newVariables[name] {
            let describe = { (v: [String]?) in
                v.map { "[" + $0.map(JSONWriter.quoted).joined(separator: ", ") + "]" } ?? "undefined"
            }
            settings.append(
                "$(\(name)) changed from \(describe(oldVariables[name])) to \(describe(newVariables[name]))")
        }
        for url in ExampleURLs.derive(from: [old, new], host: host) where openerChanges.count < maxExamples {
            let x = before.resolve(url: url).appID
            let y = after.resolve(url: url).appID
            if x != y { openerChanges.append(OpenerChange(url: url, before: x, after: y)) }
        }
    }

    static func rules(of app: String, in matcher: AASAMatcher) -> [Rule] {
        guard let number = matcher.appNumbers[app] else { return [] }
        return matcher.rules.indices.filter { matcher.ruleApps[$0].contains(number) }.map { i in
            let rule = matcher.rules[i]
            let text: String
            if rule.location.kind == .path {
                text = JSONWriter().string(
                    .object(["paths": .string((rule.exclude ? "NOT " : "") + (rule.effective.path ?? ""))]))
            } else {
                text = JSONWriter().string(rule.effective.jsonValue)
            }
            return Rule(text: text, location: rule.location)
        }
    }

    /// Removed and added elements by longest common subsequence, so a moved rule shows as both.
    static func sequenceDiff(_ a: [Rule], _ b: [Rule]) -> (removed: [Rule], added: [Rule]) {
        let n = a.count
        let m = b.count
        var lcs = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                lcs[i][j] = a[i].text == b[j].text ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
            }
        }
        var removed: [Rule] = []
        var added: [Rule] = []
        var i = 0
        var j = 0
        while i < n || j < m {
            if i < n, j < m, a[i].text == b[j].text {
                i += 1
                j += 1
            } else if j < m, i == n || lcs[i][j + 1] >= lcs[i + 1][j] {
                added.append(b[j])
                j += 1
            } else {
                removed.append(a[i])
                i += 1
            }
        }
        return (removed, added)
    }

    static func text(_ value: JSONValue?) -> String {
        value.map { JSONWriter().string($0) } ?? "nothing"
    }
}
