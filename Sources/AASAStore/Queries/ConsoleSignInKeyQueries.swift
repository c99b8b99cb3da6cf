import Foundation
import PostgresNIO

/// The key console sign-ins under way are sealed with (`console_sign_in_keys`): one for every replica.
extension DBSession {
    /// The key, made from `candidate` when there is none yet (the first replica to ask wins; the
    /// others read its key).
    public func consoleSignInKey(candidate: [UInt8]) async throws -> [UInt8] {
        try await run(
            "INSERT INTO console_sign_in_keys (id, key) VALUES (1, \(Data(candidate))) ON CONFLICT (id) DO NOTHING")
        let key = try await first("SELECT key FROM console_sign_in_keys WHERE id = 1", as: Data.self)
        return [UInt8](key ?? Data(candidate))
    }
}
