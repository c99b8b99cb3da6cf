/// One matching expression of a dynamic rule as a device runs it: `DalComponentParser`'s
/// `parseMatchingExpression` turns it into an `android.os.PatternMatcher` of one of three types, and
/// `PatternMatcher.matchPattern` compares a URL part with it. Both work on Java `char`s, so this does
/// on UTF-16 code units.
struct AndroidPattern: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// No wildcard: the whole part equals the expression.
        case literal
        /// One wildcard, a trailing `*`: the part starts with the rest.
        case prefix
        /// Anything else: `PatternMatcher`'s simple glob, `*` → `.*`, `?` → `.`, `.` → `\.`, `\` → `\\`.
        case simpleGlob
    }

    let kind: Kind
    /// The `PatternMatcher` pattern: the expression itself, its prefix, or the converted glob.
    let pattern: [UInt16]

    /// Nil for an empty expression, which `parseMatchingExpression` refuses.
    init?(_ expression: String) {
        let chars = Array(expression.utf16)
        guard !chars.isEmpty else { return nil }
        let wildcards = chars.filter { $0 == Self.star || $0 == Self.question }.count
        if wildcards == 0 {
            kind = .literal
            pattern = chars
        } else if wildcards == 1 && chars.last == Self.star {
            kind = .prefix
            pattern = Array(chars.dropLast())
        } else {
            kind = .simpleGlob
            var out: [UInt16] = []
            out.reserveCapacity(chars.count * 2)
            for c in chars {
                switch c {
                case Self.star: out += [Self.dot, Self.star]
                case Self.question: out.append(Self.dot)
                case Self.dot: out += [Self.backslash, Self.dot]
                case Self.backslash: out += [Self.backslash, Self.backslash]
                default: out.append(c)
                }
            }
            pattern = out
        }
    }

    static let star = UInt16(UInt8(ascii: "*"))
    static let question = UInt16(UInt8(ascii: "?"))
    static let dot = UInt16(UInt8(ascii: "."))
    static let backslash = UInt16(UInt8(ascii: "\\"))

    /// `PatternMatcher.matchPattern`: an absent part (nil, as `Uri` gives an absent fragment or
    /// query) never matches.
    func matches(_ part: [UInt16]?) -> Bool {
        guard let part else { return false }
        switch kind {
        case .literal: return part == pattern
        case .prefix: return part.starts(with: pattern)
        case .simpleGlob: return Self.matchGlob(pattern, part)
        }
    }

    /// `PatternMatcher.matchGlobPattern`, step by step. Its quirks are the device's: `.*` runs, with
    /// no backtracking, up to the next pattern character as written (so `.*.` waits for a literal
    /// `.`); an escaped character in a plain position is compared as if unescaped (so `\.` still
    /// matches any character); `X*` for another `X` takes a run of `X`.
    static func matchGlob(_ p: [UInt16], _ m: [UInt16]) -> Bool {
        let np = p.count
        guard np > 0 else { return m.isEmpty }
        let nm = m.count
        var ip = 0
        var im = 0
        var next = p[0]
        while ip < np && im < nm {
            var c = next
            ip += 1
            next = ip < np ? p[ip] : 0
            let escaped = c == backslash
            if escaped {
                c = next
                ip += 1
                next = ip < np ? p[ip] : 0
            }
            if next == star {
                if !escaped && c == dot {
                    if ip >= np - 1 { return true }  // `.*` ends the pattern: the rest matches
                    ip += 1
                    next = p[ip]
                    if next == backslash {
                        ip += 1
                        next = ip < np ? p[ip] : 0
                    }
                    while m[im] != next {
                        im += 1
                        if im == nm { return false }  // the next pattern character never comes
                    }
                    ip += 1
                    next = ip < np ? p[ip] : 0
                    im += 1
                } else {
                    while im < nm && m[im] == c { im += 1 }
                    ip += 1
                    next = ip < np ? p[ip] : 0
                }
            } else {
                if c != dot && m[im] != c { return false }
                im += 1
            }
        }
        if ip >= np && im >= nm { return true }
        // The match ran out with only a final `.*` left in the pattern.
        return ip == np - 2 && p[ip] == dot && p[ip + 1] == star
    }
}

/// The parts of a URL as `android.net.Uri`'s getters give them: `getPath()` decoded (an absent path
/// is empty), `getQuery()` decoded and cut as `UriRelativeFilter.matchQuery` cuts it, `getFragment()`
/// decoded (absent: nil). Decoding is `UriCodec.decode` with `throwOnFailure` false: an invalid
/// escape becomes U+FFFD, malformed UTF-8 too.
struct AndroidURL: Sendable {
    var path: [UInt16]
    /// The decoded query split on `&` (on `;` when `&` gives one piece), as Java's `String.split`
    /// splits; nil when the URL has no query.
    var queryPieces: [[UInt16]]?
    var fragment: [UInt16]?

    init(_ url: String) {
        let split = SplitURL(url)
        path = Self.decode(split.path)
        queryPieces = split.query.map { query in
            let decoded = Self.decode(query)
            let pieces = Self.javaSplit(decoded, on: UInt16(UInt8(ascii: "&")))
            return pieces.count == 1 ? Self.javaSplit(decoded, on: UInt16(UInt8(ascii: ";"))) : pieces
        }
        fragment = split.fragment.map(Self.decode)
    }

    /// `UriCodec.decode(s, convertPlus: false, UTF-8, throwOnFailure: false)`, to UTF-16. Its quirk
    /// is kept: a bad hex digit appends U+FFFD and still buffers the value read so far (`%zz` is
    /// U+FFFD, U+0000, `z`); a `%` too close to the end appends U+FFFD and ends the string.
    static func decode(_ s: String) -> [UInt16] {
        guard s.utf8.contains(UInt8(ascii: "%")) else { return Array(s.utf16) }
        var out: [UInt16] = []
        var bytes: [UInt8] = []
        func flush() {
            guard !bytes.isEmpty else { return }
            out += String(decoding: bytes, as: UTF8.self).utf16
            bytes.removeAll(keepingCapacity: true)
        }
        let chars = Array(s.utf16)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            i += 1
            guard c == UInt16(UInt8(ascii: "%")) else {
                flush()
                out.append(c)
                continue
            }
            var value: UInt8 = 0
            for _ in 0..<2 {
                guard i < chars.count else {
                    flush()
                    out.append(0xFFFD)
                    return out
                }
                let digit = hexValue(chars[i])
                i += 1
                guard let digit else {
                    flush()
                    out.append(0xFFFD)
                    break
                }
                value = value &* 16 &+ digit
            }
            bytes.append(value)
        }
        flush()
        return out
    }

    static func hexValue(_ c: UInt16) -> UInt8? {
        switch c {
        case 0x30...0x39: UInt8(c - 0x30)
        case 0x41...0x46: UInt8(c - 0x41 + 10)
        case 0x61...0x66: UInt8(c - 0x61 + 10)
        default: nil
        }
    }

    /// Java's `String.split` on a one-character separator: every piece, then trailing empty pieces
    /// dropped (`"a&"` is one piece; `"&&"` none); a string without the separator is itself.
    static func javaSplit(_ s: [UInt16], on separator: UInt16) -> [[UInt16]] {
        guard s.contains(separator) else { return [s] }
        var pieces = s.split(separator: separator, omittingEmptySubsequences: false).map(Array.init)
        while pieces.last?.isEmpty == true { pieces.removeLast() }
        return pieces
    }
}
