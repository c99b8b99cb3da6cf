import AASAKernel
import Foundation
import JWTKit

/// An ID token's claims as a CI job's token carries them: the registered ones (`iss`, `aud`,
/// `exp`, `nbf`, `iat`, `jti`, `sub`) and every other claim as text, for trust rules to match
/// (GitHub's `repository`, `ref`, `workflow`, `run_id`…; GitLab's `project_path`, `pipeline_id`…).
/// jwt-kit checks the signature; `OIDCClaimCheck` judges the times and names, with reasons.
package struct JobClaims: JWTPayload, Sendable {
    package var issuer: String?
    package var audiences: [String]
    package var expires: Double?
    package var notBefore: Double?
    package var issuedAt: Double?
    package var id: String?
    package var subject: String?
    /// Every string, number or boolean claim, as text (nested objects and arrays are left out).
    package var claims: [String: String]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        var claims: [String: String] = [:]
        var audiences: [String] = []
        var numbers: [String: Double] = [:]
        for key in container.allKeys {
            if let text = try? container.decode(String.self, forKey: key) {
                claims[key.stringValue] = text
            } else if let number = try? container.decode(Double.self, forKey: key) {
                numbers[key.stringValue] = number
                claims[key.stringValue] =
                    number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
            } else if let flag = try? container.decode(Bool.self, forKey: key) {
                claims[key.stringValue] = flag ? "true" : "false"
            } else if key.stringValue == "aud", let list = try? container.decode([String].self, forKey: key) {
                audiences = list
            }
        }
        if let single = claims["aud"] { audiences = [single] }
        self.issuer = claims["iss"]
        self.audiences = audiences
        self.expires = numbers["exp"]
        self.notBefore = numbers["nbf"]
        self.issuedAt = numbers["iat"]
        self.id = claims["jti"]
        self.subject = claims["sub"]
        self.claims = claims
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (key, value) in claims.sorted(by: { $0.key < $1.key }) {
            try container.encode(value, forKey: Key(stringValue: key))
        }
    }

    /// The signature is jwt-kit's to check; the claims are judged after, by `OIDCClaimCheck`, so
    /// each refusal can say which claim and why.
    package func verify(using algorithm: some JWTAlgorithm) async throws {}
}
