import AASAKernel
import AASAModel
import Foundation

/// A URL aasad connects to on someone's word (a webhook, a fetch of a URL a caller named), with
/// its host in the one spelling that both the address check and the connection use: lower case,
/// no trailing dot, international labels in Punycode. Issue 41: the check pinned the address
/// under the lower-cased host while the HTTP client looked its override up by the host as
/// written, so `https://HOOKS.example.com/` was resolved again at connect time (DNS rebinding
/// past the private-address rule).
package struct OutboundURL: Sendable, Equatable {
    /// The URL with its host normalised; everything else as given.
    package var text: String
    /// The normalised host (an IPv6 literal without its brackets, as a resolver takes it).
    package var host: String

    /// nil when the text has no `scheme://host`, carries user information, or its host is no host
    /// name (`HostName.normalized`) or bracketed IPv6 literal.
    package init?(_ given: String) {
        guard let separator = given.range(of: "://") else { return nil }
        let scheme = given[..<separator.lowerBound].lowercased()
        let rest = given[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var port: Substring = ""
        var bracketed: String?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close].lowercased()
            port = authority[authority.index(after: close)...]
            bracketed = "[\(host)]"
        } else {
            var name = authority
            if let colon = authority.lastIndex(of: ":") {
                name = authority[..<colon]
                port = authority[colon...]
            }
            guard let normalized = try? HostName.normalized(String(name)) else { return nil }
            host = normalized
        }
        guard port.isEmpty || (port.count > 1 && port.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }) else {
            return nil
        }
        text = "\(scheme)://\(bracketed ?? host)\(port)\(rest[authorityEnd...])"
    }

    /// Whether the text holds a control character (CR and LF above all), which no URL may carry
    /// and which would end a header line where the URL is logged or sent.
    package static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) }
    }
}
