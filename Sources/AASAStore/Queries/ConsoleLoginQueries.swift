import Foundation
import PostgresNIO

/// Sign-ins under way through an OpenID provider (`console_oidc_logins`): written when the browser
/// is sent to the provider, taken once when it comes back.
extension DBSession {
    /// Records a sign-in under way, unless `limit` are already under way (false): each is a row a
    /// visitor makes without signing in, so their number is bounded, and those older than `maxAge`
    /// are forgotten first.
    public func insertConsoleLogin(
        stateHash: [UInt8], bindingHash: [UInt8], nonceHash: [UInt8], provider: String, maxAge: Duration,
        limit: Int
    ) async throws -> Bool {
        try await expireConsoleLogins(maxAge: maxAge)
        let pending = try await first("SELECT count(*)::bigint FROM console_oidc_logins", as: Int.self) ?? 0
        guard pending < limit else { return false }
        try await run(
            """
            INSERT INTO console_oidc_logins (state_hash, binding_hash, nonce_hash, provider)
            VALUES (\(Data(stateHash)), \(Data(bindingHash)), \(Data(nonceHash)), \(provider))
            """)
        return true
    }

    /// The sign-in `state` names, deleted as it is read, if it began within `maxAge`: a second
    /// answer with the same state finds nothing.
    public func takeConsoleLogin(stateHash: [UInt8], maxAge: Duration) async throws -> (
        bindingHash: [UInt8], nonceHash: [UInt8], provider: String
    )? {
        let seconds = Double(maxAge.components.seconds)
        return try await first(
            """
            WITH taken AS (DELETE FROM console_oidc_logins WHERE state_hash = \(Data(stateHash)) RETURNING *)
            SELECT binding_hash, nonce_hash, provider FROM taken
            WHERE created_at >= now() - make_interval(secs => \(seconds))
            """, as: (Data, Data, String).self
        ).map { (bindingHash: [UInt8]($0.0), nonceHash: [UInt8]($0.1), provider: $0.2) }
    }

    /// Forgets sign-ins never finished (the janitor's pass).
    public func expireConsoleLogins(maxAge: Duration) async throws {
        let seconds = Double(maxAge.components.seconds)
        try await run(
            "DELETE FROM console_oidc_logins WHERE created_at < now() - make_interval(secs => \(seconds))")
    }
}
