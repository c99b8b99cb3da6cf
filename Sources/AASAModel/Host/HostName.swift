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
