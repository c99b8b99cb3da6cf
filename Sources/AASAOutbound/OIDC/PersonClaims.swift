import Foundation
import JWTKit

/// A person's ID token from a console sign-in: every claim kept as JSON, since the groups may be
/// an array, or nested where the provider puts them (`realm_access.roles`). jwt-kit checks the
/// signature; `PersonClaimCheck` judges the claims, each refusal with its reason.
package struct PersonClaims: JWTPayload, Sendable {
    package indirect enum Value: Decodable, Sendable, Equatable {
        case string(String)
        case number(Double)
        case bool(Bool)
        case array([Value])
        case object([String: Value])
        case null

        package init(from decoder: any Decoder) throws {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let text = try? single.decode(String.self) {
                self = .string(text)
            } else if let flag = try? single.decode(Bool.self) {
                self = .bool(flag)
            } else if let number = try? single.decode(Double.self) {
                self = .number(number)
            } else if let list = try? single.decode([Value].self) {
                self = .array(list)
            } else {
                self = .object(try single.decode([String: Value].self))
            }
        }

        var string: String? { if case .string(let text) = self { text } else { nil } }
        var number: Double? { if case .number(let number) = self { number } else { nil } }
    }

    package var claims: [String: Value]

    package init(from decoder: any Decoder) throws {
        claims = try decoder.singleValueContainer().decode([String: Value].self)
    }

    package func encode(to encoder: any Encoder) throws {}

    /// Judged by `PersonClaimCheck`, after the signature.
    package func verify(using algorithm: some JWTAlgorithm) async throws {}

    package var issuer: String? { claims["iss"]?.string }
    package var subject: String? { claims["sub"]?.string }
    package var nonce: String? { claims["nonce"]?.string }
    package var authorizedParty: String? { claims["azp"]?.string }
    package var expires: Double? { claims["exp"]?.number }
    package var issuedAt: Double? { claims["iat"]?.number }
    package var notBefore: Double? { claims["nbf"]?.number }
    package var audiences: [String] {
        switch claims["aud"] {
        case .string(let one): [one]
        case .array(let many): many.compactMap(\.string)
        default: []
        }
    }

    /// The email, unless the provider says it is not verified.
    package var verifiedEmail: String? {
        if case .bool(false) = claims["email_verified"] { return nil }
        return claims["email"]?.string
    }

    package var preferredUsername: String? { claims["preferred_username"]?.string }

    /// The groups at `path`: an array of strings, or one string; nothing else counts.
    package func groups(at path: [String]) -> [String] {
        var value: Value? = .object(claims)
        for key in path {
            guard case .object(let members) = value else { return [] }
            value = members[key]
        }
        switch value {
        case .string(let one): return [one]
        case .array(let many): return many.compactMap(\.string)
        default: return []
        }
    }
}

/// A sign-in's ID token judged as OpenID Connect Core §3.1.3.7 says: `iss` is the provider's,
/// `aud` names this client (and `azp` does, when present or when there are several audiences),
/// `exp` and `iat` hold at `now` within the leeway and within a day, and `nonce` is the one this
/// sign-in sent (compared by SHA-256, as it is stored).
package enum PersonClaimCheck {
    package static func check(
        _ claims: PersonClaims, issuer: String, clientID: String, nonceMatches: (String) -> Bool, now: Date
    ) throws(ExchangeRefusal) {
        let t = now.timeIntervalSince1970
        guard claims.issuer == issuer else {
            throw ExchangeRefusal(.untrustedIssuer, "the ID token's iss is not the provider's issuer URL")
        }
        let audiences = claims.audiences
        guard audiences.contains(clientID) else {
            throw ExchangeRefusal(.audience, "the ID token was issued to another client")
        }
        if audiences.count > 1 || claims.authorizedParty != nil {
            guard claims.authorizedParty == clientID else {
                throw ExchangeRefusal(.audience, "the ID token's azp names another client")
            }
        }
        guard let exp = claims.expires, let iat = claims.issuedAt else {
            throw ExchangeRefusal(.malformed, "the ID token lacks exp or iat")
        }
        guard exp <= t + OIDCClaimCheck.horizon, abs(iat - t) <= OIDCClaimCheck.horizon else {
            throw ExchangeRefusal(.malformed, "the ID token's exp or iat is more than a day away from now")
        }
        guard t <= exp + OIDCClaimCheck.leeway else { throw ExchangeRefusal(.expired, "the ID token expired") }
        if let nbf = claims.notBefore, t + OIDCClaimCheck.leeway < nbf {
            throw ExchangeRefusal(.notYetValid, "the ID token is not valid yet (nbf)")
        }
        guard iat <= t + OIDCClaimCheck.leeway else {
            throw ExchangeRefusal(.issuedInFuture, "the ID token's iat is in the future")
        }
        guard let nonce = claims.nonce, nonceMatches(nonce) else {
            throw ExchangeRefusal(.nonce, "the ID token's nonce is not the one this sign-in sent")
        }
        guard let sub = claims.subject, !sub.isEmpty, sub.utf8.count <= 255 else {
            throw ExchangeRefusal(.malformed, "the ID token has no sub")
        }
    }
}
