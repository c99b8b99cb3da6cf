import Foundation
import PostgresNIO

extension DBSession {
    private static let tokenColumns = """
        t.id, t.team_id, teams.name, t.name, t.scopes, t.secret_hash, t.created_at, t.expires_at, t.revoked_at, t.last_used_at
        """
    private typealias TokenRow = (UUID, Int64?, String?, String, [String], Data, Date, Date?, Date?, Date?)

    private func tokens(_ query: PostgresQuery) async throws -> [TokenRecord] {
        try await all(query, as: TokenRow.self).map {
            TokenRecord(id: $0.0, teamID: $0.1, teamName: $0.2, name: $0.3,
                        scopes: $0.4.compactMap(TokenScope.init(rawValue:)), secretHash: [UInt8]($0.5),
                        createdAt: $0.6, expiresAt: $0.7, revokedAt: $0.8, lastUsedAt: $0.9)
        }
    }

    public func token(id: UUID) async throws -> TokenRecord? {
        try await tokens("""
            SELECT \(unescaped: Self.tokenColumns) FROM tokens t LEFT JOIN teams ON teams.id = t.team_id WHERE t.id = \(id)
            """).first
    }

    public func listTokens(teamID: Int64) async throws -> [TokenRecord] {
        try await tokens("""
            SELECT \(unescaped: Self.tokenColumns) FROM tokens t LEFT JOIN teams ON teams.id = t.team_id
            WHERE t.team_id = \(teamID) ORDER BY t.created_at DESC, t.id
            """)
    }

    public func insertToken(id: UUID, teamID: Int64?, name: String, scopes: [TokenScope], secretHash: [UInt8],
                            expiresAt: Date?) async throws -> TokenRecord {
        try await write("""
            INSERT INTO tokens (id, team_id, name, scopes, secret_hash, expires_at)
            VALUES (\(id), \(teamID), \(name), \(scopes.map(\.rawValue)), \(Data(secretHash)), \(expiresAt))
            """)
        return try await token(id: id)!
    }

    /// Marks the token revoked (once: the first revocation time is kept).
    public func revokeToken(id: UUID) async throws {
        try await write("UPDATE tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = \(id)")
    }

    /// Records use at most once a minute per token, so authentication does not write on every request.
    public func touchToken(id: UUID) async throws {
        try await run("""
            UPDATE tokens SET last_used_at = now()
            WHERE id = \(id) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
            """)
    }
}
