/// One piece of a pattern as Apple reads it: `*` (any run, the empty one included, crossing `/`),
/// `?` (exactly one character), `$(name)` (one of the variable's values), anything else literal.
/// There is no escape syntax.
public enum PatternToken: Sendable, Hashable {
    case literal(Unicode.Scalar)
    case anyOne
    case anyRun
    case variable(String)
}

/// A `$(` that does not form a variable reference. The text is then matched literally.
public struct PatternSyntaxIssue: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// `$(` with no `)`.
        case unterminated
        /// `$()`.
        case emptyName
        /// A name containing `$` or `(`.
        case invalidName(String)
    }

    public var kind: Kind
    /// Offset of the `$` in Unicode scalars.
    public var offset: Int

    public var message: String {
        switch kind {
        case .unterminated: "\"$(\" at character \(offset + 1) has no closing \")\": it is matched as literal text"
        case .emptyName: "\"$()\" at character \(offset + 1) names no variable"
        case .invalidName(let name):
            """
            variable name \(JSONWriter.quoted(name)) at character \(offset + 1) contains \"$\" or \"(\", which \
            names cannot contain
            """
        }
    }
}

public enum PatternSyntax {
    /// Splits a pattern into tokens. Malformed `$(` references become literal text and an issue.
    public static func tokenize(_ pattern: String) -> (tokens: [PatternToken], issues: [PatternSyntaxIssue]) {
        let scalars = Array(pattern.unicodeScalars)
        var tokens: [PatternToken] = []
        tokens.reserveCapacity(scalars.count)
        var issues: [PatternSyntaxIssue] = []
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            switch c {
            case "*":
                tokens.append(.anyRun)
                i += 1
            case "?":
                tokens.append(.anyOne)
                i += 1
            case "$" where i + 1 < scalars.count && scalars[i + 1] == "(":
                guard let close = scalars[(i + 2)...].firstIndex(of: ")") else {
                    issues.append(.init(kind: .unterminated, offset: i))
                    tokens.append(contentsOf: scalars[i...].map(PatternToken.literal))
                    i = scalars.count
                    continue
                }
                let name = String(String.UnicodeScalarView(scalars[(i + 2)..<close]))
                if name.isEmpty {
                    issues.append(.init(kind: .emptyName, offset: i))
                    tokens.append(contentsOf: scalars[i...close].map(PatternToken.literal))
                } else if name.unicodeScalars.contains(where: { $0 == "$" || $0 == "(" }) {
                    issues.append(.init(kind: .invalidName(name), offset: i))
                    tokens.append(contentsOf: scalars[i...close].map(PatternToken.literal))
                } else {
                    tokens.append(.variable(name))
                }
                i = close + 1
            default:
                tokens.append(.literal(c))
                i += 1
            }
        }
        return (tokens, issues)
    }

    /// The names of the well-formed `$(…)` references in `pattern`, in order, repeats included.
    public static func variableNames(in pattern: String) -> [String] {
        tokenize(pattern).tokens.compactMap {
            if case .variable(let name) = $0 { return name }
            return nil
        }
    }
}
