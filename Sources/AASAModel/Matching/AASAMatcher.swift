/// What Apple's systems decide for one app and one URL.
public enum Decision: String, Sendable, Hashable, Codable {
    /// The app may open the URL.
    case match
    /// An `exclude` rule (or a `NOT ` path) stopped the search: the app will not open it.
    case exclude
    /// No rule of the app matched.
    case noMatch = "no_match"
}

/// One app's decision and the rule that made it.
public struct AppDecision: Sendable, Hashable {
    public var decision: Decision
    public var rule: RuleLocation?
}

/// Which app opens a URL when every app of the file is installed.
public struct Resolution: Sendable, Hashable {
    /// The first app, in order of first appearance in `details`, whose decision is `match`.
    public var appID: String?
    /// The rule that opened it.
    public var rule: RuleLocation?
    /// True when no app opens the URL and at least one app's decision is `exclude`.
    public var excluded: Bool
    /// Every app's own decision, in app order.
    public var decisions: [(appID: String, decision: AppDecision)]

    public static func == (a: Resolution, b: Resolution) -> Bool {
        a.appID == b.appID && a.rule == b.rule && a.excluded == b.excluded
            && a.decisions.map(\.appID) == b.decisions.map(\.appID) && a.decisions.map(\.decision) == b.decisions.map(\.decision)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(appID)
        hasher.combine(rule)
        hasher.combine(excluded)
    }
}

/// A document compiled once for matching many URLs: patterns are parsed and compiled up front,
/// and rules are indexed by their literal first path segment so a URL only meets the few rules
/// that can match it. Immutable and `Sendable`: share one across threads.
public struct AASAMatcher: Sendable {
    /// Apps in order of first appearance in `applinks.details`.
    public let appIDs: [String]
    let rules: [CompiledRule]
    /// For each rule, the app numbers (indices into `appIDs`) of its details entry.
    let ruleApps: [[Int]]
    let appNumbers: [String: Int]
    let index: RuleIndex

    public init(_ document: AASADocument) {
        var appIDs: [String] = []
        var appNumbers: [String: Int] = [:]
        var rules: [CompiledRule] = []
        var ruleApps: [[Int]] = []
        let links = document.applinks
        let compiler = RuleCompiler(variables: VariableTable(links?.substitutionVariables))
        for (entryIndex, entry) in (links?.details ?? []).enumerated() {
            var apps: [Int] = []
            for id in entry.effectiveAppIDs {
                let number: Int
                if let known = appNumbers[id] { number = known } else {
                    number = appIDs.count
                    appNumbers[id] = number
                    appIDs.append(id)
                }
                if !apps.contains(number) { apps.append(number) }
            }
            if let components = entry.components {
                for (i, component) in components.enumerated() {
                    let effective = component.filled(from: entry.defaults).filled(from: links?.defaults)
                    rules.append(compiler.compile(component: effective, at: .init(detailsIndex: entryIndex, kind: .component, index: i)))
                    ruleApps.append(apps)
                }
            } else if let paths = entry.paths {
                for (i, path) in paths.enumerated() {
                    rules.append(compiler.compile(legacyPath: path, at: .init(detailsIndex: entryIndex, kind: .path, index: i)))
                    ruleApps.append(apps)
                }
            }
        }
        self.appIDs = appIDs
        self.appNumbers = appNumbers
        self.rules = rules
        self.ruleApps = ruleApps
        self.index = RuleIndex(rules)
    }

    /// What the system decides for `appID` and `url`. With a `domain`, a URL on another host is
    /// `noMatch` (hosts compare without regard to case; an empty domain skips the check).
    public func decide(appID: String, url: String, domain: String? = nil) -> AppDecision {
        let split = SplitURL(url)
        guard hostMatches(split, domain), let app = appNumbers[appID] else { return AppDecision(decision: .noMatch, rule: nil) }
        let subject = URLSubject(split)
        for r in index.candidates(for: subject) where ruleApps[r].contains(app) {
            let rule = rules[r]
            if rule.matches(subject) {
                return AppDecision(decision: rule.exclude ? .exclude : .match, rule: rule.location)
            }
        }
        return AppDecision(decision: .noMatch, rule: nil)
    }

    /// Which app opens `url`, with every app's own decision.
    public func resolve(url: String, domain: String? = nil) -> Resolution {
        let split = SplitURL(url)
        var decisions = [AppDecision?](repeating: nil, count: appIDs.count)
        if hostMatches(split, domain) {
            let subject = URLSubject(split)
            var undecided = appIDs.count
            for r in index.candidates(for: subject) where undecided > 0 {
                let apps = ruleApps[r]
                guard apps.contains(where: { decisions[$0] == nil }) else { continue }
                let rule = rules[r]
                guard rule.matches(subject) else { continue }
                for app in apps where decisions[app] == nil {
                    decisions[app] = AppDecision(decision: rule.exclude ? .exclude : .match, rule: rule.location)
                    undecided -= 1
                }
            }
        }
        let all = decisions.enumerated().map { (appID: appIDs[$0.offset], decision: $0.element ?? AppDecision(decision: .noMatch, rule: nil)) }
        let opener = all.first { $0.decision.decision == .match }
        return Resolution(
            appID: opener?.appID, rule: opener?.decision.rule,
            excluded: opener == nil && all.contains { $0.decision.decision == .exclude },
            decisions: all)
    }

    private func hostMatches(_ url: SplitURL, _ domain: String?) -> Bool {
        guard let domain, !(domain.isEmpty && Readings.emptyDomainSkipsHostCheck), let host = url.host else { return true }
        return host == HostName.comparable(domain)
    }
}

/// First-path-segment dispatch: rules whose pattern starts with a literal segment sit in a bucket
/// for that segment (per encoding and case variant); the rest are always candidates.
struct RuleIndex: Sendable {
    struct Bucket: Sendable {
        let encoded: Bool
        let folded: Bool
        var rules: [[UInt32]: [Int]]
    }

    let always: [Int]
    let buckets: [Bucket]

    init(_ rules: [CompiledRule]) {
        var always: [Int] = []
        var buckets: [Bucket] = []
        for (i, rule) in rules.enumerated() {
            guard let segment = rule.firstSegment, rule.path != nil else {
                always.append(i)
                continue
            }
            let folded = !rule.caseSensitive
            if let b = buckets.firstIndex(where: { $0.encoded == rule.percentEncoded && $0.folded == folded }) {
                buckets[b].rules[segment, default: []].append(i)
            } else {
                buckets.append(Bucket(encoded: rule.percentEncoded, folded: folded, rules: [segment: [i]]))
            }
        }
        self.always = always
        self.buckets = buckets
    }

    /// The rules that may match, in document order.
    func candidates(for subject: URLSubject) -> [Int] {
        var result = always
        var lists = always.isEmpty ? 0 : 1
        for bucket in buckets {
            let path = subject.path(encoded: bucket.encoded, folded: bucket.folded)
            let slash = UInt32(UInt8(ascii: "/"))
            let segment = path.firstIndex(of: slash).map { Array(path[..<$0]) } ?? path
            if let found = bucket.rules[segment] {
                result += found
                lists += 1
            }
        }
        if lists > 1 { result.sort() }
        return result
    }
}
