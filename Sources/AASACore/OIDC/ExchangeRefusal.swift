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
    }

    package var reason: Reason
    package var message: String

    package init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    package var serviceError: ServiceError {
        ServiceError(
            kind: .unauthorized, slug: "token-exchange-refused", title: "The ID token was not exchanged",
            detail: message, errors: [FieldError(field: "subject_token", rule: reason.rawValue, message: message)])
    }
}
