import AASAKernel
import AASAStore
import Foundation
import JWTKit

/// An ID token checked end to end: its header read for `kid` and `alg`, the issuer it claims
/// found among the trusted ones, the key fetched (`OIDCKeyCache`), the header's `alg` held to the
/// key's, the signature verified by jwt-kit with that key only, then the claims judged
/// (`OIDCClaimCheck`). Any failure is an `ExchangeRefusal` saying which step.
package struct IDTokenVerifier: Sendable {
    package let keys: OIDCKeyCache

    package init(keys: OIDCKeyCache) { self.keys = keys }

    package func verify(
        _ token: String, now: Date, issuer find: (String) async throws -> OIDCIssuerRecord?
    ) async throws -> (claims: JobClaims, issuer: OIDCIssuerRecord) {
        let unverified = try Self.header(of: token)
        let header = try Self.checkHeader(unverified)
        guard header.kid != nil else { throw ExchangeRefusal(.malformed, "the token's header names no kid") }
        guard let iss = unverified.issuer.iss, let issuer = try await find(iss) else {
            throw ExchangeRefusal(.untrustedIssuer, "the token's issuer is not one this server trusts")
        }
        let claims = try await verifySignature(token, header: header, of: issuer, as: JobClaims.self)
        try OIDCClaimCheck.check(claims, issuer: issuer, now: now)
        return (claims, issuer)
    }

    /// The token's payload as `Payload`, once its signature verifies with `issuer`'s key `kid`
    /// under that key's algorithm. The claims are the caller's to judge: a CI job's token and a
    /// person's sign-in are checked for different things (`OIDCClaimCheck`, `PersonClaimCheck`).
    package func verifySignature<Payload: JWTPayload>(
        _ token: String, of issuer: OIDCIssuerRecord, as payload: Payload.Type
    ) async throws -> Payload {
        try await verifySignature(
            token, header: try Self.checkHeader(try Self.header(of: token)), of: issuer, as: payload)
    }

    /// The same, with the header already read and checked (the exchange reads it once, for `iss`).
    private func verifySignature<Payload: JWTPayload>(
        _ token: String, header: (alg: String, kid: String?), of issuer: OIDCIssuerRecord, as payload: Payload.Type
    ) async throws -> Payload {
        let (alg, kid) = header
        let key = try await keys.key(kid, of: issuer)
        guard key.algorithm == alg else {
            throw ExchangeRefusal(.algorithm, "the token's alg is not its key's (\(key.algorithm))")
        }
        do {
            return try await key.keys.verify(token, as: Payload.self)
        } catch {
            throw ExchangeRefusal(.signature, "the token's signature does not verify with \(issuer.name)'s key")
        }
    }

    /// The header's algorithm, and its `kid` if it names one (OpenID Connect Core §10.1 lets a
    /// provider with one signing key leave it out: then that key is the only one that may verify).
    private static func checkHeader(_ unverified: UnverifiedJWT) throws -> (alg: String, kid: String?) {
        guard let alg = unverified.header.alg, ["RS256", "ES256"].contains(alg) else {
            throw ExchangeRefusal(.algorithm, "the token's alg must be RS256 or ES256")
        }
        if let crit = unverified.header.crit {
            throw ExchangeRefusal(
                .malformed,
                "the token's header lists critical extensions (crit: "
                    + "\(crit.prefix(5).joined(separator: ", ").prefix(200))) that this server does not understand "
                    + "(RFC 7515 §4.1.11): ask the issuer to leave crit out")
        }
        if let kid = unverified.header.kid, kid.isEmpty {
            throw ExchangeRefusal(.malformed, "the token's header names an empty kid")
        }
        return (alg, unverified.header.kid)
    }

    private static func header(of token: String) throws -> UnverifiedJWT {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= 16 * 1024, parts.count == 3,
            let unverified = UnverifiedJWT(header: parts[0], payload: parts[1])
        else { throw ExchangeRefusal(.malformed, "the subject_token is not a signed JWT (header.payload.signature)") }
        return unverified
    }
}
