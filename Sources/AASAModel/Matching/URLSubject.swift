/// A URL split the way Apple's matcher reads it: the parts exactly as written (still
/// percent-encoded), an absent query or fragment being the empty string.
public struct SplitURL: Sendable, Hashable {
    /// The authority as written (`user@host:port`); nil for a bare path such as `/buy/1`.
    public var authority: String?
    public var path: String
    public var query: String?
    public var fragment: String?

    /// Lower-case ASCII host without port or trailing dot (Punycode for international names).
    public var host: String? { authority.map { SplitURL.host(fromAuthority: $0[...]) } }

    /// Splits `url`. Characters a browser would percent-encode first (spaces, non-ASCII) are encoded,
    /// as `URL(string:)` does, so `https://example.com/café` is read as `/caf%C3%A9`.
    public init(_ url: String) {
        let encoded = PercentEncoding.encodeForURL(url)
        var rest = Substring(encoded)
        if let hash = rest.utf8.firstIndex(of: UInt8(ascii: "#")) {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let question = rest.utf8.firstIndex(of: UInt8(ascii: "?")) {
            query = String(rest[rest.index(after: question)...])
            rest = rest[..<question]
        }
        let utf8 = rest.utf8
        if let colon = utf8.firstIndex(of: UInt8(ascii: ":")), !utf8[..<colon].contains(UInt8(ascii: "/")),
            utf8[colon...].starts(with: "://".utf8)
        {
            let afterScheme = rest[rest.utf8.index(colon, offsetBy: 3)...]
            let authorityEnd = afterScheme.utf8.firstIndex(of: UInt8(ascii: "/")) ?? afterScheme.endIndex
            authority = String(afterScheme[..<authorityEnd])
            path = String(afterScheme[authorityEnd...])
        } else {
            authority = nil
            path = String(rest)
        }
    }

    static func host(fromAuthority authority: Substring) -> String {
        var h = authority
        if let at = h.lastIndex(of: "@") { h = h[h.index(after: at)...] }
        if h.hasPrefix("[") {
            if let close = h.firstIndex(of: "]") { h = h[...close] }
        } else if let colon = h.lastIndex(of: ":") {
            h = h[..<colon]
        }
        let text = String(h)
        // Undo the encoding applied above so an internationalised host reaches Punycode as Unicode.
        let decoded =
            PercentEncoding.decode(text[...].utf8).flatMap { scalars -> String? in
                var view = String.UnicodeScalarView()
                for v in scalars {
                    guard let s = Unicode.Scalar(v) else { return nil }
                    view.append(s)
                }
                return String(view)
            } ?? text
        return HostName.comparable(decoded)
    }
}

/// A URL prepared for matching: every form a rule may ask for (encoded or decoded, case-folded or
/// not) is computed at most once per URL, however many rules look at it.
final class URLSubject {
    let url: SplitURL

    private var paths = Slots<[UInt32]>()
    private var queries = Slots<[UInt32]>()
    private var fragments = Slots<[UInt32]>()
    private var items = Slots<[QueryItem]>()

    struct QueryItem {
        var name: [UInt32]
        var value: [UInt32]
    }

    init(_ url: SplitURL) {
        self.url = url
    }

    @inline(__always)
    private static func slot(_ encoded: Bool, _ folded: Bool) -> Int { (encoded ? 0 : 2) + (folded ? 1 : 0) }

    /// The path with every leading and trailing `/` removed (an empty path is `/`, so empty here).
    func path(encoded: Bool, folded: Bool) -> [UInt32] {
        let slot = Self.slot(encoded, folded)
        if let cached = paths[slot] { return cached }
        var value: [UInt32]
        if folded {
            value = CaseFolding.fold(path(encoded: encoded, folded: false))
        } else {
            value = URLSubject.text(url.path, encoded: encoded)
            URLSubject.stripSlashes(&value)
        }
        paths[slot] = value
        return value
    }

    /// The whole query string (empty when absent).
    func query(encoded: Bool, folded: Bool) -> [UInt32] {
        let slot = Self.slot(encoded, folded)
        if let cached = queries[slot] { return cached }
        let value =
            folded
            ? CaseFolding.fold(query(encoded: encoded, folded: false))
            : URLSubject.text(url.query ?? "", encoded: encoded)
        queries[slot] = value
        return value
    }

    func fragment(encoded: Bool, folded: Bool) -> [UInt32] {
        let slot = Self.slot(encoded, folded)
        if let cached = fragments[slot] { return cached }
        let value =
            folded
            ? CaseFolding.fold(fragment(encoded: encoded, folded: false))
            : URLSubject.text(url.fragment ?? "", encoded: encoded)
        fragments[slot] = value
        return value
    }

    /// Query items: split on `&`, empty items skipped, split at the first `=` (none: empty value);
    /// `+` is not a space. Decoded item by item after splitting. Values are folded when asked;
    /// names never are (`Readings.queryItemNamesFoldCase`).
    func queryItems(encoded: Bool, foldValues: Bool) -> [QueryItem] {
        let slot = Self.slot(encoded, foldValues)
        if let cached = items[slot] { return cached }
        var result: [QueryItem] = []
        for item in (url.query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let value: Substring
            if let eq = item.firstIndex(of: "=") {
                name = item[..<eq]
                value = item[item.index(after: eq)...]
            } else {
                name = item
                value = ""
            }
            var n = URLSubject.text(name, encoded: encoded)
            var v = URLSubject.text(value, encoded: encoded)
            if Readings.queryItemNamesFoldCase && foldValues { n = CaseFolding.fold(n) }
            if foldValues { v = CaseFolding.fold(v) }
            result.append(QueryItem(name: n, value: v))
        }
        items[slot] = result
        return result
    }

    static func text<S: StringProtocol>(_ s: S, encoded: Bool) -> [UInt32] {
        let sub = Substring(s)
        if encoded { return PercentEncoding.scalars(sub) }
        if let decoded = PercentEncoding.decode(sub.utf8) { return decoded }
        return PercentEncoding.scalars(sub)  // Readings.undecodableComponentComparedAsWritten
    }

    static func stripSlashes(_ s: inout [UInt32]) {
        let slash = UInt32(UInt8(ascii: "/"))
        var end = s.count
        while end > 0 && s[end - 1] == slash { end -= 1 }
        var start = 0
        while start < end && s[start] == slash { start += 1 }
        if start > 0 || end < s.count { s = Array(s[start..<end]) }
    }
}

/// Four cached variants (encoded or decoded, folded or not) without allocating an array per URL.
private struct Slots<T> {
    private var a: T?, b: T?, c: T?, d: T?

    subscript(i: Int) -> T? {
        get {
            switch i {
            case 0: a
            case 1: b
            case 2: c
            default: d
            }
        }
        set {
            switch i {
            case 0: a = newValue
            case 1: b = newValue
            case 2: c = newValue
            default: d = newValue
            }
        }
    }
}
