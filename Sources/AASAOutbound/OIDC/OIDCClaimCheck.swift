import AASAKernel
import AASAStore
import Foundation

/// The registered claims of a verified ID token, judged against the issuer it claims: `iss` is
/// the issuer's URL, `aud` names the configured audience, and `exp`, `nbf` and `iat` hold at
/// `now` with at most `leeway` of clock skew. `exp`, `iat` and `jti` are required: a token
/// without them cannot be bounded in time or refused as a replay. An `exp` or `iat` more than
/// `horizon` away from `now` is malformed (issue 49): no CI job's token lives a day, and a date
/// far out (`exp: 10000000000000`) must never reach a query.
package enum OIDCClaimCheck {
    package static let leeway: TimeInterval = 60
    package static let horizon: TimeInterval = 86_400

    package static func check(_ claims: JobClaims, issuer: OIDCIssuerRecord, now: Date) throws(ExchangeRefusal) {
        let t = now.timeIntervalSince1970
        guard claims.issuer == issuer.issuer else {
            throw ExchangeRefusal(.untrustedIssuer, "the token's iss is not \(issuer.name)'s issuer URL")
        }
        guard claims.audiences.contains(issuer.audience) else {
            throw ExchangeRefusal(
                .audience, "the token's aud does not name \(issuer.audience), the audience \(issuer.name) is set for")
        }
        guard let exp = claims.expires, let iat = claims.issuedAt else {
            throw ExchangeRefusal(.malformed, "the token lacks exp or iat")
        }
        // A comparison with NaN is false, so NaN is refused too. A token long expired is `expired`.
        guard exp <= t + horizon, abs(iat - t) <= horizon else {
            throw ExchangeRefusal(.malformed, "the token's exp or iat is more than a day away from now")
        }
        guard t <= exp + leeway else { throw ExchangeRefusal(.expired, "the token expired") }
        if let nbf = claims.notBefore, t + leeway < nbf {
            throw ExchangeRefusal(.notYetValid, "the token is not valid yet (nbf)")
        }
        guard iat <= t + leeway else { throw ExchangeRefusal(.issuedInFuture, "the token's iat is in the future") }
        guard let jti = claims.id, !jti.isEmpty, jti.utf8.count <= 255 else {
            throw ExchangeRefusal(.malformed, "the token has no jti, so a replay could not be told")
        }
    }
}
