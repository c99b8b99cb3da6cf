import AASAKernel
import AASAModel
import AASAOutbound
import AASARules

/// What the probe (and the CDN monitor) found wrong with a fetched file, with codes as stable as
/// the linter's: scripts and alerts may key on them.
package struct ProbeFinding: Sendable, Equatable {
    package enum Code: String, Sendable, CaseIterable {
        /// No connection: DNS, refused, reset.
        case unreachable = "P001"
        /// The TLS handshake or the certificate failed (Apple's fetcher verifies it).
        case tls = "P002"
        /// No complete answer within the deadline.
        case timeout = "P003"
        /// The host resolves to a loopback, private, link-local or unique-local address: not
        /// fetched (`--probe-allow-private` allows it).
        case privateAddress = "P004"
        /// A status other than 200.
        case status = "P010"
        /// A 3xx: Apple's fetcher follows no redirect.
        case redirect = "P011"
        /// Over 128 KB: Apple reads no more.
        case tooLarge = "P012"
        /// `Content-Type` other than `application/json`: iOS accepts it, other services may not.
        case contentType = "P020"
        /// The body is not an apple-app-site-association file at all.
        case unparseable = "P030"
        /// It parses, but AASAModel's validation finds errors in it.
        case lintErrors = "P031"
        /// The served bytes are an older revision than the current one.
        case staleRevision = "P040"
        /// The served bytes are no revision this service published.
        case unknownBytes = "P041"
        /// The domain has no published revision, yet.
        case notPublished = "P042"

        package var name: String {
            switch self {
            case .unreachable: "unreachable"
            case .tls: "tls"
            case .timeout: "timeout"
            case .privateAddress: "private-address"
            case .status: "status"
            case .redirect: "redirect"
            case .tooLarge: "too-large"
            case .contentType: "content-type"
            case .unparseable: "unparseable"
            case .lintErrors: "lint-errors"
            case .staleRevision: "stale-revision"
            case .unknownBytes: "unknown-bytes"
            case .notPublished: "not-published"
            }
        }

        package var isWarning: Bool { self == .contentType }
    }

    package var code: Code
    package var message: String

    package var jsonValue: JSONValue {
        .object([
            "code": .string(code.rawValue), "name": .string(code.name),
            "severity": .string(code.isWarning ? "warning" : "error"), "message": .string(message),
        ])
    }
}
