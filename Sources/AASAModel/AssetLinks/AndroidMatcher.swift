/// Dynamic App Links (Android 15+): which apps a URL opens by the `dynamic_app_link_components` of a
/// statement list, as AOSP's code answers it (docs/assetlinks-spec.md, "Matching", names each source
/// file and commit). Each rule is a `UriRelativeFilterGroup`: ALLOW, or BLOCK for `exclude`, with one
/// filter per component. Per app, the first group whose filters all match decides; none matching
/// means not opened. A statement without dynamic rules (absent or empty) leaves the decision to the
/// app's manifest (`.manifest`).
public struct AndroidMatcher: Sendable {
    public enum Decision: String, Sendable, Hashable {
        case open
        case exclude
        /// No rule matched: Android treats the URL as excluded.
        case noMatch = "no_match"
        /// The statement has no dynamic rules: the manifest alone decides.
        case manifest
    }

    /// One rule, compiled: a group of filters, each a `PatternMatcher` on one part of the URL.
    struct Rule: Sendable {
        var path: AndroidPattern?
        /// Each `"?"` entry as one QUERY filter on `name=value` (a reading: docs/assetlinks-spec.md).
        var query: [AndroidPattern]
        var fragment: AndroidPattern?
        var exclude: Bool
        var index: Int

        /// `UriRelativeFilterGroup.matchData`: every filter matches; a group with none never does.
        func matches(_ url: AndroidURL) -> Bool {
            guard path != nil || !query.isEmpty || fragment != nil else { return false }
            if let path, !path.matches(url.path) { return false }
            for item in query where !(url.queryPieces?.contains(where: item.matches) ?? false) { return false }
            if let fragment, !fragment.matches(url.fragment) { return false }
            return true
        }
    }

    /// Package names in statement order, with their rules (nil: no dynamic rules).
    let apps: [(packageName: String, rules: [Rule]?)]

    public init(_ document: AssetLinksDocument) {
        var apps: [(String, [Rule]?)] = []
        for (_, statement) in document.statements where statement.relations.contains(AssetLinksDocument.handleAllURLs) {
            guard case .androidApp(let package, _) = statement.target, !apps.contains(where: { $0.0 == package }) else {
                continue
            }
            // A missing or empty array: no dynamic rules (StatementParser), the manifest decides.
            let components = statement.dynamicComponents.flatMap { $0.isEmpty ? nil : $0 }
            apps.append((package, components.map(Self.compile)))
        }
        self.apps = apps
    }

    /// Malformed rules are left out here; the validator reports them.
    static func compile(_ components: [JSONValue]) -> [Rule] {
        components.enumerated().compactMap { i, c in
            guard let o = c.objectValue else { return nil }
            var query: [AndroidPattern] = []
            for member in o["?"]?.objectValue ?? [:] {
                guard let value = member.value.stringValue, let pattern = AndroidPattern(member.key + "=" + value)
                else { return nil }
                query.append(pattern)
            }
            var parts: [String: AndroidPattern] = [:]
            for key in ["/", "#"] {
                guard let value = o[key] else { continue }
                guard let expression = value.stringValue, let pattern = AndroidPattern(expression) else { return nil }
                parts[key] = pattern
            }
            return Rule(
                path: parts["/"], query: query, fragment: parts["#"], exclude: Self.optBoolean(o["exclude"]), index: i)
        }
    }

    /// org.json's `optBoolean`, as StatementParser reads `exclude`: `true`, or the string "true" in
    /// any case; anything else is false.
    static func optBoolean(_ value: JSONValue?) -> Bool {
        if let b = value?.boolValue { return b }
        return value?.stringValue?.lowercased() == "true"
    }

    /// Each app's decision for `url`, with the rule that decided (its index in the app's list).
    public func decisions(url: String) -> [(packageName: String, decision: Decision, rule: Int?)] {
        let subject = AndroidURL(url)
        return apps.map { app in
            guard let rules = app.rules else { return (app.packageName, .manifest, nil) }
            guard let rule = rules.first(where: { $0.matches(subject) }) else {
                return (app.packageName, .noMatch, nil)
            }
            return (app.packageName, rule.exclude ? .exclude : .open, rule.index)
        }
    }

    /// Whether one of `packages` opens `url`: only those apps' rules are tried, the URL read once.
    public func anyOpens(_ packages: Set<String>, url: String) -> Bool {
        let subject = AndroidURL(url)
        for app in apps where packages.contains(app.packageName) {
            if let rule = app.rules?.first(where: { $0.matches(subject) }), !rule.exclude { return true }
        }
        return false
    }

    public func decide(packageName: String, url: String) -> Decision {
        decisions(url: url).first { $0.packageName == packageName }?.decision ?? .noMatch
    }
}
