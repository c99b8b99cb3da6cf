/// Host names as AASA files are served for them: ASCII, lower case, Punycode for international
/// labels, no trailing dot, no port.
public enum HostName {
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case empty
        case tooLong(Int)
        case emptyLabel
        case labelTooLong(String)
        case invalidCharacter(String, Character)
        case hyphenAtLabelEdge(String)
        case notPunycode(String)
        case ipLiteral(String)
        case singleLabel(String)
        case localhost(String)

        public var description: String {
            switch self {
            case .empty: "the host name is empty"
            case .tooLong(let n): "the host name is \(n) characters long; the limit is 253"
            case .emptyLabel: "the host name has an empty label (two dots in a row, or a leading dot)"
            case .labelTooLong(let l): "label \"\(l)\" is longer than 63 characters"
            case .invalidCharacter(let l, let c):
                "label \"\(l)\" contains \"\(c)\": host names allow letters, digits and hyphens"
            case .hyphenAtLabelEdge(let l): "label \"\(l)\" starts or ends with a hyphen"
            case .notPunycode(let l): "label \"\(l)\" starts with xn-- but is not valid Punycode"
            case .ipLiteral(let h):
                "\(h) is an IP address literal: an associated domain is a fully qualified DNS name"
            case .singleLabel(let h):
                "\(h) is a single-label name: an associated domain is a fully qualified DNS name (example.com)"
            case .localhost(let h): "\(h) is a loopback name: Apple's and Google's fetchers can never reach it"
            }
        }
    }

    /// The ASCII form used for comparison and storage. Unicode input is accepted and encoded.
    public static func normalized(_ host: String) throws(Problem) -> String {
        var h = host
        if h.hasSuffix(".") { h.removeLast() }
        guard !h.isEmpty else { throw .empty }
        var labels: [String] = []
        for raw in h.split(separator: ".", omittingEmptySubsequences: false) {
            guard !raw.isEmpty else { throw .emptyLabel }
            let label = CaseFolding.fold(String(raw))
            let ascii: String
            if label.unicodeScalars.allSatisfy({ $0.isASCII }) {
                ascii = label
                if ascii.hasPrefix("xn--"), Punycode.decode(String(ascii.dropFirst(4))) == nil {
                    throw .notPunycode(ascii)
                }
            } else {
                guard let encoded = Punycode.encode(label) else { throw .notPunycode(label) }
                ascii = "xn--" + encoded
            }
            guard ascii.utf8.count <= 63 else { throw .labelTooLong(ascii) }
            if let bad = ascii.first(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-")) }) {
                // Underscores appear in real DNS names but never in certificate-valid web hosts.
                throw .invalidCharacter(String(raw), bad)
            }
            if ascii.hasPrefix("-") || ascii.hasSuffix("-") { throw .hyphenAtLabelEdge(ascii) }
            labels.append(ascii)
        }
        let joined = labels.joined(separator: ".")
        guard joined.utf8.count <= 253 else { throw .tooLong(joined.utf8.count) }
        return joined
    }

    /// A host that can be an associated domain (and an Android Digital Asset Links site): a fully
    /// qualified public DNS name. On top of `normalized`, it refuses IP literals in any spelling a
    /// URL parser reads as one (a WHATWG URL host whose last label is a number: `127.0.0.1`,
    /// `0x7f.1`, `2130706433`; IPv6 needs `[`/`:`, which `normalized` refuses), single-label names
    /// (`intranet`, `localhost`) and `*.localhost` (RFC 6761). Test hosts such as `example.com` or
    /// `shop.example.test` stay valid: the rule is about shape, not about the public suffix list.
    public static func associatedDomain(_ host: String) throws(Problem) -> String {
        let h = try normalized(host)
        let labels = h.split(separator: ".")
        if let last = labels.last, isNumericLabel(last) { throw .ipLiteral(host) }
        if h == "localhost" || h.hasSuffix(".localhost") { throw .localhost(host) }
        if labels.count < 2 { throw .singleLabel(host) }
        return h
    }

    /// A label that makes a WHATWG URL parser read the host as IPv4: decimal digits, or `0x` and hex digits.
    static func isNumericLabel(_ label: Substring) -> Bool {
        let lower = label.lowercased()
        if lower.hasPrefix("0x") { return lower.dropFirst(2).allSatisfy(\.isHexDigit) }
        return !lower.isEmpty && lower.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Best-effort comparison form for hosts read from URLs: normalised when valid, else lower-cased.
    static func comparable(_ host: String) -> String {
        (try? normalized(host)) ?? CaseFolding.fold(host.hasSuffix(".") ? String(host.dropLast()) : host)
    }

    /// The host for display: Punycode labels decoded to Unicode.
    public static func unicode(_ asciiHost: String) -> String {
        asciiHost.split(separator: ".", omittingEmptySubsequences: false).map { label in
            if label.hasPrefix("xn--"), let decoded = Punycode.decode(String(label.dropFirst(4))) { return decoded }
            return String(label)
        }.joined(separator: ".")
    }
}
