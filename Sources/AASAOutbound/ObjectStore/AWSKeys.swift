import AASAKernel
import Foundation

/// One set of AWS keys. Its description names the key ID only: a secret never reaches a log line,
/// an answer or an audit row, even through string interpolation.
package struct AWSKeys: Sendable, CustomStringConvertible {
    package var accessKeyID: String
    package var secretAccessKey: String
    package var sessionToken: String?
    /// When temporary keys (STS) stop working; nil for long-lived keys.
    package var expiration: Date?

    package init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, expiration: Date? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
    }

    package var description: String { "AWS keys \(accessKeyID) (secret withheld)" }
}
