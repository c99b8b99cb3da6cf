/// A URL some app opens although an organisation guardrail says no app may open that path.
public struct ProtectedPathOpening: Sendable, Hashable {
    /// The protected path pattern the URL lies in.
    public var pattern: String
    /// The witness: a URL in the protected pattern that the document opens (checked with the matcher).
    public var url: String
    public var appID: String
    /// The rule that opens it.
    public var rule: RuleLocation
}

/// Protected paths (`/account/*`, `/oauth/*`): path patterns, in the syntax of a rule's `"/"`, that
/// no app may open. Whether a document opens one is a language question, answered on the
/// automata: for each opening rule of each app, a path in the protected pattern and in the rule
/// that no earlier exclude of that app covers. Every witness is then run through the real matcher,
/// so what is reported is a URL Apple's devices would open in an app.
///
/// Protected patterns compare as written, like a path on the server (`/account/*` does not
/// protect `/Account/x`, a different path); a case-insensitive rule that reaches `/account/…`
/// is caught all the same, since its language holds the lower-case spelling.
public enum ProtectedPaths {
    /// Automaton steps one check may take (a step is well under a microsecond): bounded so a
    /// hostile pattern cannot stall a write; past it the check says it is incomplete.
    public static let defaultBudget = 2_000_000

    /// Why `pattern` cannot be a protected path pattern, or nil when it can.
    public static func problem(_ pattern: String) -> String? {
        guard pattern.hasPrefix("/") else { return "a protected path pattern starts with /" }
        guard pattern.utf8.count <= 1024 else { return "a protected path pattern is at most 1024 bytes" }
        for scalar in pattern.unicodeScalars
        where scalar.properties.isWhitespace || scalar.value < 0x20 || scalar.value == 0x7F || scalar == "#" {
            return "a protected path pattern has no white space, control characters or #"
        }
        let (tokens, issues) = PatternSyntax.tokenize(pattern)
        if let issue = issues.first { return "the pattern cannot be read: \(issue)" }
        if tokens.contains(where: { if case .variable = $0 { return true } else { return false } }) {
            return "a protected path pattern has no $(…) variables: write the paths out"
        }
        return nil
    }

    /// Every (pattern, app) for which the document opens a URL in a protected pattern, with one
    /// witness URL each, in pattern then app order. `complete` is false when the work bound cut
    /// the search short (nothing found past it is claimed).
    public static func openings(
        in document: AASADocument, matcher: AASAMatcher? = nil, patterns: [String],
        host: String, budget steps: Int = defaultBudget
    ) -> (openings: [ProtectedPathOpening], complete: Bool) {
        guard !patterns.isEmpty else { return ([], true) }
        let matcher = matcher ?? AASAMatcher(document)
        let budget = AnalysisBudget(steps: steps)
        let variables = VariableTable(document.applinks?.substitutionVariables)
        let rules = matcher.rules
        let languages = rules.map { RuleLanguage($0, variables: variables, legacy: $0.location.kind == .path) }
        let ruleKeys = languages.map { $0.path?.commonPrefix() ?? [] }
        var found: [ProtectedPathOpening] = []
        for pattern in patterns where problem(pattern) == nil {
            let stripped = PathPatternShape.stripSlashes(PatternSyntax.tokenize(pattern).tokens)
            var alternatives = [stripped]
            if let alt = PathPatternShape.withoutFinalSlashStar(stripped) { alternatives.append(alt) }
            let protected = Automaton.build(alternatives, variables: VariableTable(nil), caseSensitive: true)
            let key = protected.commonPrefix()
            var reported = Set<String>()
            for (app, appID) in matcher.appIDs.enumerated() where !reported.contains(appID) {
                var blockers: [Automaton] = []
                for j in rules.indices where matcher.ruleApps[j].contains(app) && !rules[j].matchesNothing {
                    let language = languages[j]
                    if rules[j].exclude {
                        // Only an exclude that holds whatever the query and fragment hides a path.
                        guard case .any = language.query, language.fragment == nil else { continue }
                        guard let path = language.path else { break }  // excludes every URL: nothing later opens
                        blockers.append(path)
                        continue
                    }
                    // Prefixes that part ways cannot meet: skip the automata.
                    let rk = ruleKeys[j]
                    let n = min(rk.count, key.count)
                    guard rk.prefix(n).elementsEqual(key.prefix(n)) else { continue }
                    let path = language.path ?? Automaton.universal()
                    guard let result = LanguageOps.witness(in: [protected, path], outside: blockers, budget: budget)
                    else { break }
                    guard let witness = result else { continue }
                    let example = language.commonExample(with: language, budget: budget)
                    let url = RuleAnalyzer.exampleURL(
                        host: host, (RuleLanguage.text(witness), example?.query ?? "", example?.fragment ?? ""),
                        percentEncoded: rules[j].percentEncoded)
                    let resolution = matcher.resolve(url: url)
                    guard let opener = resolution.appID, let rule = resolution.rule else { continue }
                    reported.insert(opener)
                    found.append(ProtectedPathOpening(pattern: pattern, url: url, appID: opener, rule: rule))
                    break
                }
                if budget.exhausted { return (found, false) }
            }
        }
        return (found, !budget.exhausted)
    }
}

/// Rules that can match every path: `*`, `/*`, `/?*`, a rule with no `"/"`, and the same hidden
/// behind a variable (`$(alpha)*`, or a custom variable whose value is `*`). Only a team whose
/// grant is the whole domain may have one. The test is on the rule's language, not its text: the
/// rule is a catch-all when it matches every path that begins with a letter, which is every path
/// a site's pages live under in practice (so `$(alpha)*` counts, `/s*` does not).
public enum CatchAllRule {
    public static func isCatchAll(
        pathPattern: String?, caseSensitive: Bool, substitutionVariables: [SubstitutionVariable]?
    ) -> Bool {
        guard let pathPattern else { return true }
        let variables = VariableTable(substitutionVariables)
        let stripped = PathPatternShape.stripSlashes(PatternSyntax.tokenize(pathPattern).tokens)
        if !stripped.isEmpty && stripped.allSatisfy({ $0 == .anyRun }) { return true }
        var alternatives = [stripped]
        if let alt = PathPatternShape.withoutFinalSlashStar(stripped) { alternatives.append(alt) }
        let rule = Automaton.build(alternatives, variables: variables, caseSensitive: caseSensitive)
        // Every path that starts with a letter, either case.
        let everyPath = Automaton.build(
            [[.variable("alpha"), .anyRun]], variables: VariableTable(nil), caseSensitive: true)
        return LanguageOps.isSubset(everyPath, of: rule, budget: AnalysisBudget(steps: 200_000)) == true
    }
}
