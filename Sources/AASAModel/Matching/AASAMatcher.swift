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
    let appIDs: [String]
    let decided: [AppDecision?]

    /// Every app's own decision, in app order.
    public var decisions: [(appID: String, decision: AppDecision)] {
        appIDs.indices.map { (appIDs[$0], decided[$0] ?? AppDecision(decision: .noMatch, rule: nil)) }
    }

    public static func == (a: Resolution, b: Resolution) -> Bool {
        a.appID == b.appID && a.rule == b.rule && a.excluded == b.excluded && a.appIDs == b.appIDs
            && a.decided == b.decided
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
    /// The document's compiler (its substitution variables): explanations compile what-if variants.
    let compiler: RuleCompiler

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
                if let known = appNumbers[id] {
                    number = known
                } else {
                    number = appIDs.count
                    appNumbers[id] = number
                    appIDs.append(id)
                }
                if !apps.contains(number) { apps.append(number) }
            }
            if let components = entry.components {
                for (i, component) in components.enumerated() {
                    let effective = component.filled(from: entry.defaults).filled(from: links?.defaults)
                    rules.append(
                        compiler.compile(
                            component: effective, at: .init(detailsIndex: entryIndex, kind: .component, index: i)))
                    ruleApps.append(apps)
                }
            } else if let paths = entry.paths {
                for (i, path) in paths.enumerated() {
                    rules.append(
                        compiler.compile(legacyPath: path, at: .init(detailsIndex: entryIndex, kind: .path, index: i)))
                    ruleApps.append(apps)
                }
            }
        }
        self.appIDs = appIDs
        self.appNumbers = appNumbers
        self.rules = rules
        self.ruleApps = ruleApps
        self.index = RuleIndex(rules)
        self.compiler = compiler
    }

    /// What the system decides for `appID` and `url`. With a `domain`, a URL on another host is
    /// `noMatch` (hosts compare without regard to case; an empty domain skips the check).
    public func decide(appID: String, url: String, domain: String? = nil) -> AppDecision {
        let split = SplitURL(url)
        guard hostMatches(split, domain), let app = appNumbers[appID] else {
            return AppDecision(decision: .noMatch, rule: nil)
        }
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
        resolve(SplitURL(url), domain: domain)
    }

    /// `resolve(url:)` for a URL split once and asked about many times (golden URLs).
    public func resolve(_ split: SplitURL, domain: String? = nil) -> Resolution {
        var decisions = [AppDecision?](repeating: nil, count: appIDs.count)
        var opener: Int?
        if hostMatches(split, domain) {
            let subject = URLSubject(split)
            var undecided = appIDs.count
            // Every app's decision is reported, so the scan stops only when all apps have decided.
            for r in index.candidates(for: subject) where undecided > 0 {
                let apps = ruleApps[r]
                guard apps.contains(where: { decisions[$0] == nil }) else { continue }
                let rule = rules[r]
                guard rule.matches(subject) else { continue }
                for app in apps where decisions[app] == nil {
                    decisions[app] = AppDecision(decision: rule.exclude ? .exclude : .match, rule: rule.location)
                    undecided -= 1
                    if !rule.exclude, opener.map({ app < $0 }) ?? true { opener = app }
                }
            }
        }
        let excluded = opener == nil && decisions.contains { $0?.decision == .exclude }
        return Resolution(
            appID: opener.map { appIDs[$0] }, rule: opener.flatMap { decisions[$0]?.rule },
            excluded: excluded, appIDs: appIDs, decided: decisions)
    }

    func hostMatches(_ url: SplitURL, _ domain: String?) -> Bool {
        guard let domain, !(domain.isEmpty && Readings.emptyDomainSkipsHostCheck), let host = url.host else {
            return true
        }
        return host == HostName.comparable(domain)
    }
}

/// First-path-segment dispatch: rules whose pattern starts with a literal segment sit in a bucket
/// for that segment (per encoding and case variant); the rest are always candidates. Segments are
/// looked up by hash straight from the URL's path, with no allocation per URL.
struct RuleIndex: Sendable {
    struct Bucket: Sendable {
        let encoded: Bool
        let folded: Bool
        var rules: [UInt64: [(segment: [UInt32], rules: [Int])]]
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
            let b: Int
            if let found = buckets.firstIndex(where: { $0.encoded == rule.percentEncoded && $0.folded == folded }) {
                b = found
            } else {
                buckets.append(Bucket(encoded: rule.percentEncoded, folded: folded, rules: [:]))
                b = buckets.count - 1
            }
            let hash = RuleIndex.hash(segment[...])
            var chain = buckets[b].rules[hash] ?? []
            if let k = chain.firstIndex(where: { $0.segment == segment }) {
                chain[k].rules.append(i)
            } else {
                chain.append((segment, [i]))
            }
            buckets[b].rules[hash] = chain
        }
        self.always = always
        self.buckets = buckets
    }

    static func hash(_ s: ArraySlice<UInt32>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for c in s { h = (h ^ UInt64(c)) &* 0x100_0000_01b3 }
        return h
    }

    /// The rules that may match, in document order.
    func candidates(for subject: URLSubject) -> [Int] {
        var found: [[Int]] = []
        if !always.isEmpty { found.append(always) }
        for bucket in buckets {
            let path = subject.path(encoded: bucket.encoded, folded: bucket.folded)
            let end = path.firstIndex(of: UInt32(UInt8(ascii: "/"))) ?? path.endIndex
            let segment = path[..<end]
            if let chain = bucket.rules[RuleIndex.hash(segment)],
                let hit = chain.first(where: { $0.segment[...] == segment })
            {
                found.append(hit.rules)
            }
        }
        switch found.count {
        case 0: return []
        case 1: return found[0]
        default: return found.joined().sorted()
        }
    }
}
