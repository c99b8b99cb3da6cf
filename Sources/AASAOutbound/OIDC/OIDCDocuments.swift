import Foundation
import JWTKit

/// An OpenID provider's discovery document (`/.well-known/openid-configuration`, OpenID Connect
/// Discovery 1.0 §3): the fields aasad reads, decoded into a type rather than read as a dictionary.
package struct OIDCDiscovery: Decodable, Sendable {
    package var issuer: String?
    package var jwksURI: String?
    /// Where a console sign-in sends the browser, redeems the code, and ends the provider's session.
    package var authorizationEndpoint: String?
    package var tokenEndpoint: String?
    package var endSessionEndpoint: String?

    enum CodingKeys: String, CodingKey {
        case issuer
        case jwksURI = "jwks_uri"
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case endSessionEndpoint = "end_session_endpoint"
    }
}

/// A JWK Set (RFC 7517 §5). Each member is decoded alone, by jwt-kit's own `JWK`: a key aasad
/// cannot use (another type, an algorithm jwt-kit does not know, a broken one) is skipped, and
/// the set's other keys still count.
struct JWKSet: Decodable {
    var keys: [Member]

    struct Member: Decodable {
        var jwk: JWK?
        /// `use` (RFC 7517 §4.2), which jwt-kit's `JWK` does not carry: absent means any use.
        var use: String?

        private enum UseKey: String, CodingKey { case use }

        init(from decoder: any Decoder) throws {
            jwk = try? JWK(from: decoder)
            use = try? decoder.container(keyedBy: UseKey.self).decodeIfPresent(String.self, forKey: .use)
        }
    }
}

/// A compact JWS's header and the one claim read before the signature is checked (which issuer's
/// keys to use). Nothing else in it is trusted until jwt-kit has verified the signature.
struct UnverifiedJWT {
    struct Header: Decodable {
        var alg: String?
        var kid: String?
        /// Extensions the signer says a verifier must understand (RFC 7515 §4.1.11): this one
        /// understands none, so any list is refused.
        var crit: [String]?
    }

    struct Issuer: Decodable {
        var iss: String?
    }

    var header: Header
    var issuer: Issuer

    /// Nil unless both parts are base64url JSON objects of the right shape.
    init?(header: Substring, payload: Substring) {
        guard let header = Self.decode(Header.self, header), let issuer = Self.decode(Issuer.self, payload) else {
            return nil
        }
        self.header = header
        self.issuer = issuer
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ part: Substring) -> T? {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text) else { return nil }
        return try? JSONDecoder().decode(T.self, from: data)
    }
}
