import AASAKernel

/// Why an ID token was not exchanged. The reason is the answer's rule and the metric's label;
/// the message says what to fix and never quotes key material or the token.
package struct ExchangeRefusal: Error, Sendable, Equatable {
    package enum Reason: String, Sendable, CaseIterable {
        case malformed, algorithm
        case untrustedIssuer = "untrusted-issuer"
        case unknownKey = "unknown-key"
        case keysUnavailable = "keys-unavailable"
        case signature, expired
        case notYetValid = "not-yet-valid"
        case issuedInFuture = "issued-in-future"
        case audience, replay
        case noRule = "no-rule"
        case ambiguousTeam = "ambiguous-team"
        case scope
        /// A console sign-in's ID token carries another nonce than the one its sign-in sent.
        case nonce
    }

    package var reason: Reason
    package var message: String
    /// When the issuer's keys will next be fetched (`keysUnavailable`), in seconds.
    package var retryAfter: Int?

    package init(_ reason: Reason, _ message: String, retryAfter: Int? = nil) {
        self.reason = reason
        self.message = message
        self.retryAfter = retryAfter
    }

    /// 401, except when the issuer could not be asked for its keys: then the token may be good and
    /// the job should try again, so 503 with `Retry-After`, not a refusal of its credentials.
    package var serviceError: ServiceError {
        ServiceError(
            kind: reason == .keysUnavailable ? .unavailable : .unauthorized, slug: "token-exchange-refused",
            title: "The ID token was not exchanged", detail: message,
            errors: [FieldError(field: "subject_token", rule: reason.rawValue, message: message)],
            retryAfter: reason == .keysUnavailable ? max(1, retryAfter ?? 60) : nil)
    }
}
