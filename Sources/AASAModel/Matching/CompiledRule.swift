/// Where a rule stands in its document: `applinks.details[detailsIndex].components[index]`
/// or, for legacy rules, `….paths[index]`.
public struct RuleLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable { case component, path }

    public var detailsIndex: Int
    public var kind: Kind
    public var index: Int

    public init(detailsIndex: Int, kind: Kind, index: Int) {
        self.detailsIndex = detailsIndex
        self.kind = kind
        self.index = index
    }

    public var pointer: JSONPointer {
        JSONPointer.root / "applinks" / "details" / detailsIndex / (kind == .component ? "components" : "paths") / index
    }

    public var description: String { pointer.description }

    public static func < (a: RuleLocation, b: RuleLocation) -> Bool {
        (a.detailsIndex, a.kind == .component ? 0 : 1, a.index) < (
            b.detailsIndex, b.kind == .component ? 0 : 1, b.index
        )
    }
}

/// A rule with its defaults applied and every pattern compiled.
struct CompiledRule: Sendable {
    let location: RuleLocation
    /// The effective rule (defaults filled in), kept for analysis and reports.
    let effective: ComponentRule
    let path: PathMatcher?
    let query: QueryMatcher?
    let fragment: Glob?
    let caseSensitive: Bool
    let percentEncoded: Bool
    let exclude: Bool
    /// A component that was not a dictionary: it matches nothing.
    let matchesNothing: Bool
    /// The literal first path segment every matching URL has (folded when case-insensitive),
    /// or nil when the rule can match URLs with different first segments.
    let firstSegment: [UInt32]?

    func matches(_ subject: URLSubject) -> Bool {
        if matchesNothing { return false }
        let folded = !caseSensitive
        if let path, !path.matches(subject.path(encoded: percentEncoded, folded: folded)) { return false }
        if let query {
            switch query {
            case .whole(let glob):
                if !glob.matches(subject.query(encoded: percentEncoded, folded: folded)) { return false }
            case .items(let predicates):
                let items = subject.queryItems(encoded: percentEncoded, foldValues: folded)
                for predicate in predicates where !predicate.holds(in: items) { return false }
            }
        }
        if let fragment, !fragment.matches(subject.fragment(encoded: percentEncoded, folded: folded)) { return false }
        return true
    }
}

/// A `"/"` pattern with both ends' slashes removed, and the variant without a final `/*`
/// (`/buy/*` also matches `/buy`).
struct PathMatcher: Sendable {
    let main: Glob
    let withoutFinalSlashStar: Glob?

    @inline(__always)
    func matches(_ strippedPath: [UInt32]) -> Bool {
        main.matches(strippedPath) || (withoutFinalSlashStar?.matches(strippedPath) ?? false)
    }
}

enum QueryMatcher: Sendable {
    case whole(Glob)
    case items([QueryItemPredicate])
}

/// `"name": pattern`: every occurrence of the item must match; an absent item counts as empty.
struct QueryItemPredicate: Sendable {
    let name: [UInt32]
    let pattern: Glob

    func holds(in items: [URLSubject.QueryItem]) -> Bool {
        var seen = false
        for item in items where item.name == name {
            seen = true
            if !pattern.matches(item.value) { return false }
        }
        return seen || pattern.matches([])
    }
}

/// Compiles rules of one document.
struct RuleCompiler {
    let variables: VariableTable

    func compile(component: ComponentRule, at location: RuleLocation) -> CompiledRule {
        let caseSensitive = component.caseSensitive ?? true
        let percentEncoded = component.percentEncoded ?? true
        let compiler = GlobCompiler(variables: variables, caseSensitive: caseSensitive)
        var path: PathMatcher?
        var firstSegment: [UInt32]?
        if let pattern = component.path {
            (path, firstSegment) = compilePath(PatternSyntax.tokenize(pattern).tokens, compiler)
        }
        var query: QueryMatcher?
        switch component.query {
        case .whole(let pattern)?:
            query = .whole(compiler.compile(PatternSyntax.tokenize(pattern).tokens))
        case .items(let items)?:
            // Any value that is not a string makes Apple disregard the whole dictionary.
            if items.allSatisfy({ $0.pattern != nil }) {
                query = .items(
                    items.map {
                        var name = PercentEncoding.scalars($0.name[...])
                        if Readings.queryItemNamesFoldCase && !caseSensitive { name = CaseFolding.fold(name) }
                        return QueryItemPredicate(
                            name: name, pattern: compiler.compile(PatternSyntax.tokenize($0.pattern!).tokens))
                    })
            }
        case nil: break
        }
        let fragment = component.fragment.map { compiler.compile(PatternSyntax.tokenize($0).tokens) }
        return CompiledRule(
            location: location, effective: component, path: path, query: query, fragment: fragment,
            caseSensitive: caseSensitive, percentEncoded: percentEncoded, exclude: component.exclude ?? false,
            matchesNothing: component.malformed != nil, firstSegment: component.malformed == nil ? firstSegment : nil)
    }

    /// A legacy `paths` string: `NOT ` makes it an exclusion; case-sensitive, encoded, no defaults,
    /// and `$(…)` is literal text.
    func compile(legacyPath: String, at location: RuleLocation) -> CompiledRule {
        let exclude = legacyPath.hasPrefix("NOT ")
        let pattern = exclude ? String(legacyPath.dropFirst(4)) : legacyPath
        let compiler = GlobCompiler(variables: VariableTable(nil), caseSensitive: true)
        let tokens: [PatternToken] = compiler.valueTokens(pattern)
        let (path, firstSegment) =
            Readings.legacyPathsNormaliseSlashes
            ? compilePath(tokens, compiler)
            : (PathMatcher(main: compiler.compile(tokens), withoutFinalSlashStar: nil), nil)
        return CompiledRule(
            location: location, effective: ComponentRule(path: pattern, exclude: exclude), path: path, query: nil,
            fragment: nil, caseSensitive: true, percentEncoded: true, exclude: exclude, matchesNothing: false,
            firstSegment: firstSegment)
    }

    private func compilePath(_ tokens: [PatternToken], _ compiler: GlobCompiler) -> (PathMatcher, [UInt32]?) {
        let stripped = PathPatternShape.stripSlashes(tokens)
        let alternative = PathPatternShape.withoutFinalSlashStar(stripped)
        let matcher = PathMatcher(
            main: compiler.compile(stripped), withoutFinalSlashStar: alternative.map(compiler.compile))
        let segment = PathPatternShape.literalFirstSegment(stripped).map { $0.map(compiler.fold) }
        return (matcher, segment)
    }
}

/// The slash rules of `"/"` patterns, on tokens.
enum PathPatternShape {
    static let slash = PatternToken.literal("/")

    static func stripSlashes(_ tokens: [PatternToken]) -> [PatternToken] {
        var start = 0
        var end = tokens.count
        while start < end && tokens[start] == slash { start += 1 }
        while end > start && tokens[end - 1] == slash { end -= 1 }
        return Array(tokens[start..<end])
    }

    static func withoutFinalSlashStar(_ stripped: [PatternToken]) -> [PatternToken]? {
        guard stripped.count >= 2, stripped[stripped.count - 1] == .anyRun, stripped[stripped.count - 2] == slash else {
            return nil
        }
        return Array(stripped.dropLast(2))
    }

    /// The scalars before the first `/` when they are all literal (the pattern then only matches
    /// paths whose first segment is exactly that), else nil.
    static func literalFirstSegment(_ stripped: [PatternToken]) -> [UInt32]? {
        var segment: [UInt32] = []
        for token in stripped {
            guard case .literal(let c) = token else { return nil }
            if c == "/" { return segment }
            segment.append(c.value)
        }
        return segment
    }
}
