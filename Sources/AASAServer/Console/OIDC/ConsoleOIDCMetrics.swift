import Metrics

/// `aasad_console_oidc_sign_ins_total{outcome}`: each provider sign-in, once, under `signed-in` or
/// the reason it was refused.
enum ConsoleOIDCMetrics {
    static let outcomes = [
        "signed-in", "provider-refused", "provider-unavailable", "state", "code", "no-group", "not-allowed",
        "nonce", "audience", "expired", "signature", "algorithm", "malformed", "untrusted-issuer", "unknown-key",
        "keys-unavailable", "not-yet-valid", "issued-in-future",
    ]

    static func count(_ outcome: String) {
        Counter(label: "aasad_console_oidc_sign_ins_total", dimensions: [("outcome", outcome)]).increment()
    }
}
