/// A location inside a document in RFC 6901 form: `/applinks/details/2/components/0/?/lang`.
/// `~` and `/` inside keys are escaped as `~0` and `~1`, so every path names exactly one place.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible, Comparable {
    public private(set) var tokens: [String]

    public static let root = JSONPointer(tokens: [])

    public init(tokens: [String]) {
        self.tokens = tokens
    }

    public func appending(_ key: String) -> JSONPointer {
        JSONPointer(tokens: tokens + [key])
    }

    public func appending(index: Int) -> JSONPointer {
        JSONPointer(tokens: tokens + [String(index)])
    }

    public static func / (lhs: JSONPointer, rhs: String) -> JSONPointer { lhs.appending(rhs) }
    public static func / (lhs: JSONPointer, rhs: Int) -> JSONPointer { lhs.appending(index: rhs) }

    public var description: String {
        if tokens.isEmpty { return "" }
        var out = ""
        for token in tokens {
            out += "/"
            for ch in token.unicodeScalars {
                switch ch {
                case "~": out += "~0"
                case "/": out += "~1"
                default: out.unicodeScalars.append(ch)
                }
            }
        }
        return out
    }

    public static func < (lhs: JSONPointer, rhs: JSONPointer) -> Bool {
        lhs.tokens.lexicographicallyPrecedes(rhs.tokens)
    }
}
