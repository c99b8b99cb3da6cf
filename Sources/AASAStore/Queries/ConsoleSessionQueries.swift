import Foundation
import PostgresNIO

/// The console's sessions (`migrations/0011_console_sessions.sql`), found by the SHA-256 of the
/// cookie's random ID.
extension DBSession {
    public func insertConsoleSession(idHash: [UInt8], tokenID: UUID) async throws {
        try await run("INSERT INTO console_sessions (id_hash, token_id) VALUES (\(Data(idHash)), \(tokenID))")
    }

    /// A session made through an OpenID provider: it speaks as `tokenIDs[0]` and may switch to any
    /// other of `tokenIDs` (one per team the person may act for).
    public func insertConsoleSession(
        idHash: [UInt8], tokenIDs: [UUID], provider: String, person: String, idToken: String
    ) async throws {
        try await run(
            """
            INSERT INTO console_sessions (id_hash, token_id, provider, person, token_ids, id_token)
            VALUES (\(Data(idHash)), \(tokenIDs[0]), \(provider), \(person), \(tokenIDs), \(idToken))
            """)
    }

    /// The provider session behind a console session, if it came from one.
    public func consoleSessionPerson(idHash: [UInt8]) async throws -> ConsoleSessionPerson? {
        try await first(
            """
            SELECT provider, person, token_ids, id_token FROM console_sessions
            WHERE id_hash = \(Data(idHash)) AND provider IS NOT NULL
            """, as: (String, String, [UUID], String?).self
        ).map { ConsoleSessionPerson(provider: $0.0, person: $0.1, tokenIDs: $0.2, idToken: $0.3) }
    }

    /// Makes the session speak as another of the tokens made for it; false if `tokenID` is not one.
    public func switchConsoleSession(idHash: [UInt8], to tokenID: UUID) async throws -> Bool {
        try await first(
            """
            UPDATE console_sessions SET token_id = \(tokenID)
            WHERE id_hash = \(Data(idHash)) AND \(tokenID) = ANY(token_ids) RETURNING 1
            """, as: Int.self) != nil
    }

    /// The session's token, when it was last seen and how many teams' tokens it may switch
    /// between, if the session exists, was seen within `idle` and began within `lifetime` (an
    /// expired row is left to `expireConsoleSessions`: a request makes no write for it).
    public func consoleSession(
        idHash: [UInt8], idle: Duration, lifetime: Duration
    ) async throws -> (tokenID: UUID, lastSeen: Date, choices: Int)? {
        let seconds = Double(idle.components.seconds)
        let lifetimeSeconds = Double(lifetime.components.seconds)
        return try await first(
            """
            SELECT token_id, last_seen_at, cardinality(token_ids) FROM console_sessions
            WHERE id_hash = \(Data(idHash)) AND last_seen_at >= now() - make_interval(secs => \(seconds))
              AND created_at >= now() - make_interval(secs => \(lifetimeSeconds))
            """,
            as: (UUID, Date, Int).self
        ).map { (tokenID: $0.0, lastSeen: $0.1, choices: $0.2) }
    }

    public func touchConsoleSession(idHash: [UInt8]) async throws {
        try await run("UPDATE console_sessions SET last_seen_at = now() WHERE id_hash = \(Data(idHash))")
    }

    public func deleteConsoleSession(idHash: [UInt8]) async throws {
        try await run("DELETE FROM console_sessions WHERE id_hash = \(Data(idHash))")
    }

    /// Deletes the session and revokes the tokens made for it at a provider sign-in (none for a
    /// token sign-in, whose token outlives its sessions); returns who it was, if a provider's.
    public func endConsoleSession(idHash: [UInt8]) async throws -> ConsoleSessionPerson? {
        let ended = try await first(
            """
            DELETE FROM console_sessions WHERE id_hash = \(Data(idHash))
            RETURNING provider, person, token_ids, id_token
            """, as: (String?, String?, [UUID], String?).self)
        for id in ended?.2 ?? [] { try await revokeToken(id: id) }
        guard let ended, let provider = ended.0, let person = ended.1 else { return nil }
        return ConsoleSessionPerson(provider: provider, person: person, tokenIDs: ended.2, idToken: ended.3)
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

/// Who a provider-made console session is, and what its sign-in made.
public struct ConsoleSessionPerson: Sendable {
    public var provider: String
    /// As the audit names them: email or preferred username, `sub`, and the provider.
    public var person: String
    public var tokenIDs: [UUID]
    public var idToken: String?
}
