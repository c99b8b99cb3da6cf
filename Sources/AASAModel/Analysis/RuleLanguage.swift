/// A compiled rule seen as a set of URLs: one automaton per URL part it constrains (nil = any).
struct RuleLanguage {
    enum Query {
        case any
        case whole(Automaton)
        /// Item name → pattern automaton (nil when that item's pattern is `*`).
        case items([(name: String, pattern: Automaton?)])
    }

    let path: Automaton?
    let query: Query
    let fragment: Automaton?
    let percentEncoded: Bool
    let caseSensitive: Bool

    init(_ rule: CompiledRule, variables: VariableTable, legacy: Bool) {
        let r = rule.effective
        caseSensitive = rule.caseSensitive
        percentEncoded = rule.percentEncoded
        func automaton(_ alternatives: [[PatternToken]]) -> Automaton? {
            if alternatives.contains(where: { !$0.isEmpty && $0.allSatisfy { $0 == .anyRun } }) { return nil }
            return Automaton.build(alternatives, variables: variables, caseSensitive: rule.caseSensitive)
        }
        func tokens(_ pattern: String) -> [PatternToken] {
            legacy
                ? GlobCompiler(variables: variables, caseSensitive: true).valueTokens(pattern)
                : PatternSyntax.tokenize(pattern).tokens
        }
        if let p = r.path {
            let stripped = PathPatternShape.stripSlashes(tokens(p))
            var alternatives = [stripped]
            if let alt = PathPatternShape.withoutFinalSlashStar(stripped) { alternatives.append(alt) }
            path = automaton(alternatives)
        } else {
            path = nil
        }
        switch r.query {
        case .whole(let s)?:
            query = automaton([tokens(s)]).map(Query.whole) ?? .any
        case .items(let items)? where items.allSatisfy({ $0.pattern != nil }):
            let compiled = items.map { (name: $0.name, pattern: automaton([tokens($0.pattern!)])) }
            query = compiled.allSatisfy({ $0.pattern == nil }) ? .any : .items(compiled)
        default:
            query = .any  // absent, or voided by a non-string value
        }
        fragment = r.fragment.flatMap { automaton([tokens($0)]) }
    }

    var isUniversal: Bool {
        if path != nil || fragment != nil { return false }
        if case .any = query { return true }
        return false
    }

    /// Every URL `self` matches, `other` matches too. False when unknown.
    func isSubset(of other: RuleLanguage, budget: AnalysisBudget) -> Bool {
        func part(_ mine: Automaton?, _ theirs: Automaton?) -> Bool {
            guard let theirs else { return true }
            guard let mine, percentEncoded == other.percentEncoded else { return false }
            return LanguageOps.isSubset(mine, of: theirs, budget: budget) == true
        }
        guard part(path, other.path), part(fragment, other.fragment) else { return false }
        switch (query, other.query) {
        case (_, .any): return true
        case (.any, _): return false
        case (.whole(let a), .whole(let b)): return part(a, b)
        case (.items(let mine), .items(let theirs)):
            return theirs.allSatisfy { item in
                guard let pattern = item.pattern else { return true }
                guard let own = mine.first(where: { $0.name == item.name }), let ownPattern = own.pattern else {
                    return false
                }
                return part(ownPattern, pattern)
            }
        default: return false
        }
    }

    /// A URL (path, query and fragment as text) that both rules match, nil when none is known.
    func commonExample(with other: RuleLanguage, budget: AnalysisBudget) -> (
        path: String, query: String, fragment: String
    )? {
        func part(_ a: Automaton?, _ b: Automaton?) -> String? {
            if a != nil, b != nil, percentEncoded != other.percentEncoded { return nil }
            let x = a ?? Automaton.universal()
            let y = b ?? Automaton.universal()
            guard let found = LanguageOps.intersectionWitness(x, y, budget: budget), let witness = found else {
                return nil
            }
            return RuleLanguage.text(witness)
        }
        guard let path = part(path, other.path), let fragment = part(fragment, other.fragment) else { return nil }
        var query = ""
        switch (self.query, other.query) {
        case (.any, .any): break
        case (.whole(let a), .any), (.any, .whole(let a)):
            guard let text = part(a, nil) else { return nil }
            query = text
        case (.whole(let a), .whole(let b)):
            guard let text = part(a, b) else { return nil }
            query = text
        case (.items(let a), .any), (.any, .items(let a)):
            guard let text = RuleLanguage.itemsExample(a, [], true, budget) else { return nil }
            query = text
        case (.items(let a), .items(let b)):
            guard let text = RuleLanguage.itemsExample(a, b, percentEncoded == other.percentEncoded, budget) else {
                return nil
            }
            query = text
        default:
            return nil  // a whole-query pattern against a dictionary: not worked out, so not claimed
        }
        return (path, query, fragment)
    }

    private static func itemsExample(
        _ a: [(name: String, pattern: Automaton?)], _ b: [(name: String, pattern: Automaton?)], _ sameEncoding: Bool,
        _ budget: AnalysisBudget
    ) -> String? {
        guard sameEncoding || a.isEmpty || b.isEmpty else { return nil }
        var names: [String] = []
        for item in a + b where !names.contains(item.name) { names.append(item.name) }
        var parts: [String] = []
        for name in names {
            let x = a.first(where: { $0.name == name })?.pattern ?? Automaton.universal()
            let y = b.first(where: { $0.name == name })?.pattern ?? Automaton.universal()
            guard let witness = LanguageOps.intersectionWitness(x, y, budget: budget), let value = witness else {
                return nil
            }
            parts.append(name + "=" + text(value))
        }
        return parts.joined(separator: "&")
    }

    static func text(_ scalars: [UInt32]) -> String {
        var view = String.UnicodeScalarView()
        for v in scalars { view.append(Unicode.Scalar(v) ?? "x") }
        return String(view)
    }
}
