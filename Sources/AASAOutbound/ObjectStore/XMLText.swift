import AASAKernel
import Foundation

/// The text of the first `<name>…</name>` in an AWS answer (STS's keys, an S3 or CloudFront error's
/// `Code` and `Message`). Why not an XML parser: the answers come from the endpoint the operator
/// configured, the elements wanted are leaves with no attributes, and FoundationXML would add
/// libxml2 to the runtime image for four strings. Bounded: one linear scan, no nesting followed.
package enum XMLText {
    package static func first(_ name: String, in bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes.prefix(1 << 20), as: UTF8.self)
        guard let open = text.range(of: "<\(name)>"),
            let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex)
        else { return nil }
        return unescape(String(text[open.upperBound..<close.lowerBound]))
    }

    /// XML's five predefined entities; anything else is left as it is.
    private static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
