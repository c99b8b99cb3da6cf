import Foundation
import PostgresNIO

/// The console's sessions (`migrations/0011_console_sessions.sql`), found by the SHA-256 of the
/// cookie's random ID.
extension DBSession {
    public func insertConsoleSession(idHash: [UInt8], tokenID: UUID) async throws {
        try await run("INSERT INTO console_sessions (id_hash, token_id) VALUES (\(Data(idHash)), \(tokenID))")
    }

    /// The session's token and when it was last seen, if the session exists, was seen within
    /// `idle` and began within `lifetime` (an expired row is left to `expireConsoleSessions`: a
    /// request makes no write for it).
    public func consoleSession(
        idHash: [UInt8], idle: Duration, lifetime: Duration
    ) async throws -> (tokenID: UUID, lastSeen: Date)? {
        let seconds = Double(idle.components.seconds)
        let lifetimeSeconds = Double(lifetime.components.seconds)
        return try await first(
            """
            SELECT token_id, last_seen_at FROM console_sessions
            WHERE id_hash = \(Data(idHash)) AND last_seen_at >= now() - make_interval(secs => \(seconds))
              AND created_at >= now() - make_interval(secs => \(lifetimeSeconds))
            """,
            as: (UUID, Date).self
        ).map { (tokenID: $0.0, lastSeen: $0.1) }
    }

    public func touchConsoleSession(idHash: [UInt8]) async throws {
        try await run("UPDATE console_sessions SET last_seen_at = now() WHERE id_hash = \(Data(idHash))")
    }

    public func deleteConsoleSession(idHash: [UInt8]) async throws {
        try await run("DELETE FROM console_sessions WHERE id_hash = \(Data(idHash))")
    }

    /// Forgets sessions idle past `idle` or older than `lifetime` (the janitor's hourly pass).
    public func expireConsoleSessions(idle: Duration, lifetime: Duration) async throws {
        let seconds = Double(idle.components.seconds)
        let lifetimeSeconds = Double(lifetime.components.seconds)
        try await run(
            """
            DELETE FROM console_sessions WHERE last_seen_at < now() - make_interval(secs => \(seconds))
               OR created_at < now() - make_interval(secs => \(lifetimeSeconds))
            """)
    }
}
