/// The path space a team was given on a domain: a list of prefixes, where `/shop` covers `/shop`
/// and everything under `/shop/` (not `/shopping`), and `/` covers the whole domain.
///
/// A rule is inside the grant when every path its `/` pattern can match is: the pattern's literal
/// start (up to the first `*`, `?` or `$(`) must reach past a granted prefix and its slash, or the
/// whole pattern must be exactly a granted prefix. A rule with no `/` matches every path, so only
/// `/` covers it. A case-insensitive rule is compared case-insensitively, since that is the path
/// space it speaks for. Percent-encoded spellings are compared as written.
public enum PathGrant {
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case notAbsolute
        case wildcard
        case invalidCharacter
        case tooLong

        public var description: String {
            switch self {
            case .notAbsolute: "a path prefix starts with /"
            case .wildcard: "a path prefix is literal: no *, ? or $(…)"
            case .invalidCharacter: "a path prefix has no white space, control characters, ? or #"
            case .tooLong: "a path prefix is at most 1024 bytes"
            }
        }
    }

    /// The prefix in canonical form (no trailing slash except for `/`), or the rule it breaks.
    public static func normalized(_ prefix: String) throws(Problem) -> String {
        guard prefix.hasPrefix("/") else { throw .notAbsolute }
        guard prefix.utf8.count <= 1024 else { throw .tooLong }
        if prefix.contains("*") || prefix.contains("$(") { throw .wildcard }
        for scalar in prefix.unicodeScalars
        where scalar.properties.isWhitespace || scalar.value < 0x20
            || scalar.value == 0x7F || scalar == "?" || scalar == "#"
        {
            throw scalar == "?" ? .wildcard : .invalidCharacter
        }
        var p = Substring(prefix)
        while p.count > 1 && p.hasSuffix("/") { p = p.dropLast() }
        return String(p)
    }

    /// Whether a rule with this path pattern stays inside one of `prefixes` (already normalized).
    public static func covers(_ prefixes: [String], pathPattern: String?, caseSensitive: Bool = true) -> Bool {
        if prefixes.contains("/") { return true }
        guard let pattern = pathPattern else { return false }
        let fold: (String) -> String = { caseSensitive ? $0 : CaseFolding.fold($0) }
        let literal = fold(literalStart(of: pattern))
        let isLiteral = literalStart(of: pattern).utf8.count == pattern.utf8.count
        return prefixes.contains { raw in
            let prefix = fold(raw)
            return (isLiteral && literal == prefix) || literal.hasPrefix(prefix + "/")
        }
    }

    /// The pattern up to its first wildcard or substitution variable.
    public static func literalStart(of pattern: String) -> String {
        var out = ""
        var previous: Character?
        for ch in pattern {
            if ch == "*" || ch == "?" { break }
            if ch == "(" && previous == "$" {
                out.removeLast()
                break
            }
            out.append(ch)
            previous = ch
        }
        return out
    }
}
