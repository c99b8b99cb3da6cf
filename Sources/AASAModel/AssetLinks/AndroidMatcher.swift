/// Dynamic App Links (Android 15+): which apps a URL opens by the `dynamic_app_link_components` of a
/// statement list. Per app, its rules are tried in order and the first that matches decides
/// (`exclude` → not opened); no rule matching means not opened. Statements without dynamic rules
/// leave the decision to the app's manifest (`.manifest`). docs/assetlinks-spec.md has every rule,
/// with its source, and the readings chosen where Google is silent.
public struct AndroidMatcher: Sendable {
    public enum Decision: String, Sendable, Hashable {
        case open
        case exclude
        /// No rule matched: Android treats the URL as excluded.
        case noMatch = "no_match"
        /// The statement has no dynamic rules: the manifest alone decides.
        case manifest
    }

    /// One rule, compiled: each pattern split into glob tokens once.
    struct Rule: Sendable {
        var path: AndroidGlob?
        var query: [(name: String, pattern: AndroidGlob)]
        var fragment: AndroidGlob?
        var exclude: Bool
        var index: Int

        func matches(_ url: AndroidURL) -> Bool {
            if let path, !path.matches(url.path) { return false }
            for item in query
            where !url.query.contains(where: { $0.name == item.name && item.pattern.matches($0.value) }) {
                return false
            }
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
            apps.append((package, statement.dynamicComponents.map(Self.compile)))
        }
        self.apps = apps
    }

    /// Malformed rules are left out here; the validator reports them (and Android then drops them all).
    static func compile(_ components: [JSONValue]) -> [Rule] {
        components.enumerated().compactMap { i, c in
            guard let o = c.objectValue else { return nil }
            let query = (o["?"]?.objectValue ?? [:]).compactMap { member in
                member.value.stringValue.map { (name: member.key, pattern: AndroidGlob($0)) }
            }
            return Rule(
                path: o["/"]?.stringValue.map(AndroidGlob.init), query: query,
                fragment: o["#"]?.stringValue.map(AndroidGlob.init),
                exclude: o["exclude"]?.boolValue ?? false, index: i)
        }
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

/// The parts of a URL as Android's `Uri` getters give them: decoded path (empty → `/`), decoded
/// query parameters (split on `&`, then the first `=`), decoded fragment (absent → empty).
struct AndroidURL: Sendable {
    var path: [UInt32]
    var query: [(name: String, value: [UInt32])]
    var fragment: [UInt32]

    init(_ url: String) {
        let split = SplitURL(url)
        // Undecodable escapes (`%zz`, bytes that are not UTF-8) are compared as written.
        func decoded(_ s: Substring) -> [UInt32] {
            PercentEncoding.decode(s.utf8) ?? s.unicodeScalars.map(\.value)
        }
        let rawPath = split.path.isEmpty ? "/" : split.path
        path = decoded(Substring(rawPath))
        query = (split.query ?? "").split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decoded(parts[0]).map { Unicode.Scalar($0).map(String.init) ?? "" }.joined()
            return (name, parts.count > 1 ? decoded(parts[1]) : [])
        }
        fragment = decoded(Substring(split.fragment ?? ""))
    }
}

/// Google's pattern language for dynamic rules: `?` one character, `*` zero or more characters
/// "up until the character after the wildcard in the pattern is found in the matching string":
/// the run stops at the first such character, with no backtracking. `?*` is one or more.
struct AndroidGlob: Sendable {
    enum Token: Sendable, Equatable {
        case literal(UInt32)
        case any
        /// A run of `*` and `?`: at least `minimum` characters, then up to the next literal.
        case run(minimum: Int)
    }

    let tokens: [Token]

    init(_ pattern: String) {
        var tokens: [Token] = []
        let scalars = Array(pattern.unicodeScalars)
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if c == "*" || (c == "?" && i + 1 < scalars.count && scalars[i + 1] == "*") {
                var minimum = 0
                var sawStar = false
                while i < scalars.count && (scalars[i] == "*" || scalars[i] == "?") {
                    if scalars[i] == "?" { minimum += 1 } else { sawStar = true }
                    i += 1
                }
                tokens.append(sawStar ? .run(minimum: minimum) : .any)
                continue
            }
            tokens.append(c == "?" ? .any : .literal(c.value))
            i += 1
        }
        self.tokens = tokens
    }

    func matches(_ s: [UInt32]) -> Bool {
        var j = 0
        for (t, token) in tokens.enumerated() {
            switch token {
            case .literal(let c):
                guard j < s.count, s[j] == c else { return false }
                j += 1
            case .any:
                guard j < s.count else { return false }
                j += 1
            case .run(let minimum):
                j += minimum
                guard j <= s.count else { return false }
                guard t + 1 < tokens.count else { return true }  // a final run takes the rest
                switch tokens[t + 1] {
                case .literal(let next):
                    guard let found = s[j...].firstIndex(of: next) else { return false }
                    j = found
                default:
                    break  // followed by `?`: the run is empty here (no backtracking)
                }
            }
        }
        return j == s.count
    }
}
