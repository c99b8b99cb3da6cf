import AASAKernel
import AASAStore
import Crypto

/// How a delivery is signed: `X-AASA-Signature: sha256=<hex HMAC-SHA256>` over the timestamp, a
/// period and the body, keyed with the webhook's secret. The timestamp (`X-AASA-Timestamp`, Unix
/// seconds) is inside what is signed, so a receiver that refuses old timestamps refuses replays.
package enum WebhookSignature {
    package static func sign(secret: String, timestamp: Int, body: [UInt8]) -> String {
        var message = Array("\(timestamp).".utf8)
        message += body
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Array(secret.utf8)))
        return "sha256=" + Hex.string(mac)
    }

    /// A new secret: 32 random bytes, hex, prefixed so it is recognisable in a secret scanner.
    package static func newSecret() -> String {
        "whsec_" + SymmetricKey(size: .bits256).withUnsafeBytes { Hex.string($0) }
    }
}
