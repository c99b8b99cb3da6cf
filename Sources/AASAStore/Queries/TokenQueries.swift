import AASAModel
import Foundation
import PostgresNIO

extension DBSession {
    private static let tokenColumns = """
        t.id, t.team_id, teams.name, t.name, t.scopes, t.secret_hash, t.created_at, t.expires_at, t.revoked_at, \
        t.last_used_at
        """
    typealias TokenRow = (UUID, Int64?, String?, String, [String], Data, Date, Date?, Date?, Date?)

    static func token(_ row: TokenRow) -> TokenRecord {
        TokenRecord(
            id: row.0, teamID: row.1, teamName: row.2, name: row.3,
            scopes: row.4.compactMap(TokenScope.init(rawValue:)),
            secretHash: [UInt8](row.5), createdAt: row.6, expiresAt: row.7, revokedAt: row.8, lastUsedAt: row.9)
    }

    private func tokens(_ query: PostgresQuery) async throws -> [TokenRecord] {
        try await all(query, as: TokenRow.self).map(Self.token)
    }

    public func token(id: UUID) async throws -> TokenRecord? {
        try await execute(Prepared.TokenByID(parameter: id)).first.map(Self.token)
    }

    /// The tokens of `ids` that exist, in the order of `ids`.
    public func tokens(ids: [UUID]) async throws -> [TokenRecord] {
        try await tokens(
            """
            SELECT \(unescaped: Self.tokenColumns) FROM tokens t LEFT JOIN teams ON teams.id = t.team_id
            JOIN unnest(\(ids)::uuid[]) WITH ORDINALITY AS wanted(id, n) ON wanted.id = t.id ORDER BY wanted.n
            """)
    }

    public func listTokens(teamID: Int64) async throws -> [TokenRecord] {
        try await tokens(
            """
            SELECT \(unescaped: Self.tokenColumns) FROM tokens t LEFT JOIN teams ON teams.id = t.team_id
            WHERE t.team_id = \(teamID) ORDER BY t.created_at DESC, t.id
            """)
    }

    public func insertToken(
        id: UUID, teamID: Int64?, name: String, scopes: [TokenScope], secretHash: [UInt8],
        expiresAt: Date?, parentID: UUID? = nil
    ) async throws -> TokenRecord {
        // The insert and the record read back in one round trip.
        let rows = try await writeReturning(
            """
            WITH t AS (
                INSERT INTO tokens (id, team_id, name, scopes, secret_hash, expires_at, parent_id)
                VALUES (\(id), \(teamID), \(name), \(scopes.map(\.rawValue)), \(Data(secretHash)), \(expiresAt), \
            \(parentID))
                RETURNING *)
            SELECT \(unescaped: Self.tokenColumns) FROM t LEFT JOIN teams ON teams.id = t.team_id
            """, as: TokenRow.self)
        return Self.token(rows[0])
    }

    /// Marks the token and every token it created, and theirs, revoked (once: the first
    /// revocation time is kept). Returns how many descendants this revoked.
    @discardableResult
    public func revokeToken(id: UUID) async throws -> Int {
        try await first(
            """
            WITH RECURSIVE lineage AS (
                SELECT id FROM tokens WHERE id = \(id)
                UNION SELECT t.id FROM tokens t JOIN lineage l ON t.parent_id = l.id)
            , revoked AS (
                UPDATE tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id IN (SELECT id FROM lineage) \
            RETURNING id)
            SELECT count(*)::bigint - 1 FROM revoked
            """, as: Int.self) ?? 0
    }

    /// Records use at most once a minute per token, so authentication does not write on every request.
    public func touchToken(id: UUID) async throws {
        try await run(
            """
            UPDATE tokens SET last_used_at = now()
            WHERE id = \(id) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
            """)
    }
}
