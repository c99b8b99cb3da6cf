/// A rule that never decides anything for some app, because an earlier rule of that app matches
/// every URL it matches.
public struct ShadowedRule: Sendable, Hashable {
    public var rule: RuleLocation
    public var shadowedBy: RuleLocation
    /// The apps for which the earlier rule always decides first.
    public var appIDs: [String]
    public var ruleExcludes: Bool
    public var shadowExcludes: Bool
}

/// Two rules of different apps that both open one URL: the app that comes first in `details`
/// opens it, and the other never does for that URL.
public struct RuleOverlap: Sendable, Hashable {
    public var first: RuleLocation
    public var firstAppIDs: [String]
    public var second: RuleLocation
    public var secondAppIDs: [String]
    /// A URL both rules decide `match` for (checked with the real matcher).
    public var exampleURL: String
    /// The app that opens `exampleURL`.
    public var opener: String?
    /// Every URL the second rule matches, the first matches too: for the first rule's apps' users
    /// the second rule never opens anything.
    public var secondAlwaysLoses: Bool
}

public struct RuleAnalysis: Sendable {
    public var shadowed: [ShadowedRule] = []
    public var overlaps: [RuleOverlap] = []
    /// Rules that match every URL while later rules of the same app follow.
    public var catchAll: [(rule: RuleLocation, appIDs: [String])] = []
    /// False when the work budget ran out: some shadowed or overlapping rules may be unreported.
    public var complete = true

    public init() {}

    public var diagnostics: [Diagnostic] {
        var out: [Diagnostic] = []
        for c in catchAll {
            out.append(
                .warning(
                    .catchAllRule, at: c.rule.pointer,
                    """
                    this rule matches every URL, so no later rule of \(c.appIDs.joined(separator: ", ")) is ever \
                    consulted
                    """
                ))
        }
        for s in shadowed {
            let apps = s.appIDs.joined(separator: ", ")
            let message: String
            switch (s.shadowExcludes, s.ruleExcludes) {
            case (true, false):
                message =
                    """
                    never opens anything for \(apps): the earlier exclude rule at \(s.shadowedBy) covers every \
                    URL it matches
                    """
            case (false, true):
                message =
                    """
                    this exclusion never applies for \(apps): the earlier rule at \(s.shadowedBy) already opens \
                    every URL it matches
                    """
            default:
                message =
                    """
                    never decides anything for \(apps): the earlier rule at \(s.shadowedBy) matches every URL it \
                    matches
                    """
            }
            out.append(.warning(.shadowedRule, at: s.rule.pointer, message))
        }
        for o in overlaps {
            var message =
                """
                rules of different apps match the same URLs: this rule \
                (\(o.secondAppIDs.joined(separator: ", "))) and \(o.first) \
                (\(o.firstAppIDs.joined(separator: ", "))) both match \(o.exampleURL), which \
                \(o.opener ?? "no app") opens
                """
            if o.secondAlwaysLoses {
                message +=
                    """
                    ; every URL this rule matches is opened by \(o.firstAppIDs.joined(separator: ", ")) when it \
                    is installed
                    """
            }
            out.append(.warning(.overlappingRule, at: o.second.pointer, message))
        }
        if !complete {
            out.append(
                .warning(
                    .analysisIncomplete, at: JSONPointer(tokens: ["applinks"]),
                    """
                    rule analysis stopped at its work limit (very many rules that can match the same URLs, or \
                    patterns like *a??????): shadowed and overlapping rules may be missing from this report
                    """
                ))
        }
        return out
    }
}

/// Finds shadowed and overlapping rules by treating patterns as regular languages: inclusion for
/// shadowing (a proof, or nothing is reported), intersection with a witness URL for overlaps (the
/// witness is run through the real matcher before it is reported).
public enum RuleAnalyzer {
    /// Steps of automaton work one analysis may take (a step is about 0.35 µs in a debug build).
    /// The largest file of ../shared/corpus takes 0.36 million, a generated 200-rule file 0.1
    /// million and a 1,500-rule one 1.5 million. Fuzz/regressions/analysis-budget.json would take
    /// 37 million and is cut off. 10 million was too much: libFuzzer's 10 s timeout caught a
    /// mutant of that file running out a 10-million budget under AddressSanitizer.
    public static let defaultBudget = 2_000_000

    /// - Parameter shouldStop: asked now and then; true ends the analysis as if the budget ran out
    ///   (a server passes "the request is gone").
    public static func analyze(
        _ document: AASADocument, matcher: AASAMatcher? = nil, host: String = "example.com",
        budget steps: Int = defaultBudget,
        shouldStop: (@Sendable () -> Bool)? = nil
    ) -> RuleAnalysis {
        analyze(
            document, matcher: matcher, host: host, budget: AnalysisBudget(steps: steps, shouldStop: shouldStop),
            pairing: .indexed)
    }

    /// Which pairs of rules are put to the automata: those the prefix index says may meet, or
    /// (for tests that check the index loses nothing) every pair.
    enum Pairing { case indexed, allPairs }

    static func analyze(
        _ document: AASADocument, matcher: AASAMatcher?, host: String, budget: AnalysisBudget,
        pairing: Pairing
    ) -> RuleAnalysis {
        let matcher = matcher ?? AASAMatcher(document)
        let variables = VariableTable(document.applinks?.substitutionVariables)
        var analysis = RuleAnalysis()
        let rules = matcher.rules
        // Building each rule's automata is work too: one step per rule, so that a budget of N
        // steps bounds a document of any size.
        var languages: [RuleLanguage] = []
        languages.reserveCapacity(rules.count)
        for rule in rules {
            guard budget.spend(1) else {
                analysis.complete = false
                return analysis
            }
            languages.append(RuleLanguage(rule, variables: variables, legacy: rule.location.kind == .path))
        }
        let keys = languages.map { $0.path?.commonPrefix() ?? [] }
        guard budget.spend(keys.reduce(0) { $0 + $1.count }) else {
            analysis.complete = false
            return analysis
        }
        let index = RulePrefixIndex(keys: keys)

        /// The rules that may meet `rule`, each once, ascending; a step of budget each.
        func candidates(of rule: Int, earlierOnly: Bool, where keep: (Int) -> Bool) -> [Int] {
            var found: [Int] = []
            switch pairing {
            case .indexed:
                index.ancestors(of: rule) { other, _ in
                    guard budget.spend(1) else { return false }
                    if (!earlierOnly || other < rule) && keep(other) { found.append(other) }
                    return true
                }
                found.sort()
            case .allPairs:
                for other in rules.indices where other != rule && (!earlierOnly || other < rule) && keep(other) {
                    found.append(other)
                }
            }
            return found
        }

        // Shadowing: per app, in that app's evaluation order (rule number order): the first
        // earlier rule of the app whose language holds this rule's.
        var subsetCache: [Pair: Bool] = [:]
        // A shortest path of each rule, found once: an outer rule that does not accept it cannot
        // hold the inner rule, and testing that costs a walk, not the inclusion question.
        var samples: [[UInt32]??] = Array(repeating: nil, count: rules.count)
        func refutedBySample(_ j: Int, in i: Int) -> Bool {
            guard let outer = languages[i].path, let inner = languages[j].path,
                languages[i].percentEncoded == languages[j].percentEncoded
            else { return false }
            if samples[j] == nil { samples[j] = .some(inner.shortestMember()) }
            guard let sample = samples[j] ?? nil, budget.spend(1 + sample.count) else { return false }
            return !outer.accepts(sample)
        }
        func included(_ j: Int, in i: Int) -> Bool {
            let key = Pair(i: i, j: j)
            if let known = subsetCache[key] { return known }
            let result =
                mayInclude(rules[i], rules[j]) && !refutedBySample(j, in: i)
                && languages[j].isSubset(of: languages[i], budget: budget)
            subsetCache[key] = result
            return result
        }
        var shadowIndex: [Pair: Int] = [:]
        var catchAllIndex: [Int: Int] = [:]
        apps: for (app, appID) in matcher.appIDs.enumerated() {
            let order = rules.indices.filter { matcher.ruleApps[$0].contains(app) && !rules[$0].matchesNothing }
            for (position, j) in order.enumerated() {
                if budget.exhausted { break apps }
                if languages[j].isUniversal && position < order.count - 1 {
                    if let k = catchAllIndex[j] {
                        analysis.catchAll[k].appIDs.append(appID)
                    } else {
                        catchAllIndex[j] = analysis.catchAll.count
                        analysis.catchAll.append((rules[j].location, [appID]))
                    }
                }
                // An outer rule holds every URL of the inner one only if its prefix begins the inner's.
                let earlier = candidates(of: j, earlierOnly: true) {
                    matcher.ruleApps[$0].contains(app) && !rules[$0].matchesNothing
                }
                guard let i = earlier.first(where: { included(j, in: $0) }) else { continue }
                let pair = Pair(i: i, j: j)
                if let k = shadowIndex[pair] {
                    analysis.shadowed[k].appIDs.append(appID)
                    continue
                }
                shadowIndex[pair] = analysis.shadowed.count
                analysis.shadowed.append(
                    ShadowedRule(
                        rule: rules[j].location, shadowedBy: rules[i].location, appIDs: [appID],
                        ruleExcludes: rules[j].exclude, shadowExcludes: rules[i].exclude))
            }
        }

        // Overlaps: opening rules of different entries whose apps differ, as (earlier, later) pairs
        // in rule order.
        let opens = rules.map { !$0.exclude && !$0.matchesNothing }
        var pairs: [Pair] = []
        for j in rules.indices where opens[j] {
            if budget.exhausted { break }
            for i in candidates(of: j, earlierOnly: pairing == .allPairs, where: { opens[$0] }) {
                guard pairing == .allPairs || i < j || keys[i].count < keys[j].count else { continue }
                pairs.append(Pair(i: min(i, j), j: max(i, j)))
            }
        }
        pairs.sort { ($0.i, $0.j) < ($1.i, $1.j) }
        for pair in pairs {
            let (i, j) = (pair.i, pair.j)
            let ri = rules[i]
            let rj = rules[j]
            let appsI = matcher.ruleApps[i]
            let appsJ = matcher.ruleApps[j]
            guard !budget.exhausted else { break }
            guard ri.location.detailsIndex != rj.location.detailsIndex, Set(appsI) != Set(appsJ),
                !appsI.isEmpty, !appsJ.isEmpty,
                let example = languages[i].commonExample(with: languages[j], budget: budget)
            else { continue }
            let url = exampleURL(host: host, example, percentEncoded: ri.percentEncoded)
            let subject = URLSubject(SplitURL(url))
            guard ri.matches(subject), rj.matches(subject) else { continue }
            // Resolving a URL visits the rules in order: charge it as such.
            guard budget.spend(rules.count) else { break }
            let resolution = matcher.resolve(url: url)
            // Only a real conflict: each rule is what decides `match` for its apps at this URL.
            let decidedByI = appsI.contains { resolution.decisions[$0].decision.rule == ri.location }
            let decidedByJ = appsJ.contains { resolution.decisions[$0].decision.rule == rj.location }
            guard decidedByI, decidedByJ else { continue }
            analysis.overlaps.append(
                RuleOverlap(
                    first: ri.location, firstAppIDs: appsI.map { matcher.appIDs[$0] },
                    second: rj.location, secondAppIDs: appsJ.map { matcher.appIDs[$0] },
                    exampleURL: url, opener: resolution.appID,
                    secondAlwaysLoses: mayInclude(ri, rj) && languages[j].isSubset(of: languages[i], budget: budget)))
        }
        analysis.complete = !budget.exhausted
        return analysis
    }

    private struct Pair: Hashable { let i: Int, j: Int }

    /// Cheap test before the automata: a rule pinned to one literal first segment cannot contain
    /// a rule pinned to another, nor one that is not pinned at all.
    static func mayInclude(_ outer: CompiledRule, _ inner: CompiledRule) -> Bool {
        guard let outerSegment = outer.firstSegment, outer.path != nil else { return true }
        guard let innerSegment = inner.firstSegment, inner.path != nil else { return false }
        guard outer.caseSensitive == inner.caseSensitive, outer.percentEncoded == inner.percentEncoded else {
            return true
        }
        return outerSegment == innerSegment
    }

    /// A URL whose parts, read the way each rule reads them, are the witness texts.
    static func exampleURL(host: String, _ parts: (path: String, query: String, fragment: String), percentEncoded: Bool)
        -> String
    {
        func encode(_ s: String, keeping: Set<UInt8>) -> String {
            guard !percentEncoded else { return s }
            var out: [UInt8] = []
            for b in s.utf8 {
                let plain =
                    (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A)
                    || Set("-._~!$'()*+,;:@".utf8).contains(b) || keeping.contains(b)
                if plain {
                    out.append(b)
                } else {
                    out.append(UInt8(ascii: "%"))
                    out.append(contentsOf: hex(Int(b), width: 2).utf8)
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
        var url = "https://\(host)/" + encode(parts.path, keeping: Set("/".utf8))
        if !parts.query.isEmpty { url += "?" + encode(parts.query, keeping: Set("=&/?".utf8)) }
        if !parts.fragment.isEmpty { url += "#" + encode(parts.fragment, keeping: Set("/?".utf8)) }
        return url
    }
}
