import AASAStore
import Crypto
import Foundation

/// API tokens: `aasa_<token id, 32 hex>_<secret, 43 base64url>`. The ID finds the row; the secret's
/// SHA-256 is what is stored, compared in constant time. The secrets are 256 random bits, so a
/// plain hash (not a slow password hash) is the right tool: there is nothing to brute-force.
public enum TokenSecret {
    public struct Generated: Sendable {
        public var id: UUID
        /// The whole bearer string, shown once.
        public var token: String
        public var hash: [UInt8]
    }

    public static func generate() -> Generated {
        let id = UUID()
        var rng = SystemRandomNumberGenerator()
        let secret = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &rng) }
        let encoded = Data(secret).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let token = "aasa_" + hex(id) + "_" + encoded
        return Generated(id: id, token: token, hash: hash(token))
    }

    /// The token ID a bearer string claims, or nil when it is not shaped like one of ours.
    public static func tokenID(of token: String) -> UUID? {
        let parts = token.split(separator: "_", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "aasa", parts[1].count == 32, parts[2].count == 43,
            parts[1].allSatisfy(\.isHexDigit)
        else { return nil }
        return UUIDText.parse(undashed: parts[1])
    }

    public static func hash(_ token: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(token.utf8)))
    }

    /// Compares every byte whatever the first difference, so timing tells nothing about the secret.
    public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    private static func hex(_ id: UUID) -> String {
        withUnsafeBytes(of: id.uuid) { Hex.string($0) }
    }
}
