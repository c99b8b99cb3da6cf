import AASAModel
import Foundation
import PostgresNIO

extension DBSession {
    private static let issuerColumns = "name, issuer, audience, created_at, updated_at, version"
    private typealias IssuerRow = (String, String, String, Date, Date, Int64)

    private static func issuer(_ row: IssuerRow) -> OIDCIssuerRecord {
        OIDCIssuerRecord(
            name: row.0, issuer: row.1, audience: row.2, createdAt: row.3, updatedAt: row.4, version: row.5)
    }

    public func oidcIssuers() async throws -> [OIDCIssuerRecord] {
        try await all(
            "SELECT \(unescaped: Self.issuerColumns) FROM oidc_issuers ORDER BY name", as: IssuerRow.self
        ).map(Self.issuer)
    }

    public func oidcIssuer(named name: String, forUpdate: Bool = false) async throws -> OIDCIssuerRecord? {
        try await all(
            """
            SELECT \(unescaped: Self.issuerColumns) FROM oidc_issuers WHERE name = \(name) \
            \(unescaped: forUpdate ? "FOR UPDATE" : "")
            """, as: IssuerRow.self
        ).first.map(Self.issuer)
    }

    /// The trusted issuer whose URL a token's `iss` names.
    public func oidcIssuer(url: String) async throws -> OIDCIssuerRecord? {
        try await all(
            "SELECT \(unescaped: Self.issuerColumns) FROM oidc_issuers WHERE issuer = \(url)", as: IssuerRow.self
        ).first.map(Self.issuer)
    }

    /// Creates or replaces the issuer; `StoreError.duplicate` when another name has this URL.
    public func putOIDCIssuer(name: String, issuer: String, audience: String) async throws -> OIDCIssuerRecord {
        let rows = try await writeReturning(
            """
            INSERT INTO oidc_issuers (name, issuer, audience) VALUES (\(name), \(issuer), \(audience))
            ON CONFLICT (name) DO UPDATE SET issuer = excluded.issuer, audience = excluded.audience,
                updated_at = now(), version = oidc_issuers.version + 1
            RETURNING \(unescaped: Self.issuerColumns)
            """, as: IssuerRow.self)
        return Self.issuer(rows[0])
    }

    public func deleteOIDCIssuer(name: String) async throws {
        try await write("DELETE FROM oidc_issuers WHERE name = \(name)")
    }

    /// The team's trust rules (none and version 0 when never set).
    public func teamTrust(_ team: TeamRecord) async throws -> TeamTrustRecord {
        let row = try await first(
            "SELECT rules::text, version, updated_at FROM team_trust WHERE team_id = \(team.id)",
            as: (String, Int64, Date).self)
        return TeamTrustRecord(
            teamID: team.id, teamName: team.name, rules: row.map { Self.trustRules($0.0) } ?? [],
            version: row?.1 ?? 0, updatedAt: row?.2)
    }

    /// Replaces the team's rules; returns them with their new version.
    public func setTeamTrust(_ team: TeamRecord, rules: [TrustRule]) async throws -> TeamTrustRecord {
        let rows = try await writeReturning(
            """
            INSERT INTO team_trust (team_id, rules) VALUES (\(team.id), \(StoredJSON.encode(rules))::jsonb)
            ON CONFLICT (team_id) DO UPDATE SET rules = excluded.rules, updated_at = now(),
                version = team_trust.version + 1
            RETURNING version, updated_at
            """, as: (Int64, Date).self)
        return TeamTrustRecord(
            teamID: team.id, teamName: team.name, rules: rules, version: rows[0].0, updatedAt: rows[0].1)
    }

    /// Every team's rules that name `issuer`, for an exchange to match claims against.
    public func trustRules(issuer name: String) async throws -> [(team: TeamRecord, rules: [TrustRule])] {
        let rows = try await all(
            """
            SELECT t.id, t.name, t.display_name, t.apple_team_ids, t.created_at, t.updated_at, t.version, tt.rules::text
            FROM team_trust tt JOIN teams t ON t.id = tt.team_id
            WHERE tt.rules @> \(Self.naming(issuer: name))::jsonb ORDER BY t.name
            """, as: (Int64, String, String, [String], Date, Date, Int64, String).self)
        return rows.map { row in
            let team = Self.team((row.0, row.1, row.2, row.3, row.4, row.5, row.6))
            return (team, Self.trustRules(row.7).filter { $0.issuer == name })
        }
    }

    /// Teams whose rules name the issuer (an issuer in use is not deleted).
    public func teamsTrusting(issuer name: String) async throws -> [String] {
        try await all(
            """
            SELECT t.name FROM team_trust tt JOIN teams t ON t.id = tt.team_id
            WHERE tt.rules @> \(Self.naming(issuer: name))::jsonb ORDER BY t.name
            """, as: String.self)
    }

    /// Records an exchanged ID token; false when it was exchanged already (a replay). Expired
    /// records are swept on the way: a `jti` needs remembering only while its token is valid.
    public func recordOIDCExchange(issuer: String, jti: String, expiresAt: Date) async throws -> Bool {
        // One round trip: the sweep and the insert (whose conflict is the replay).
        let rows = try await writeReturning(
            """
            WITH swept AS (DELETE FROM oidc_exchanges WHERE expires_at < now() - interval '5 minutes')
            INSERT INTO oidc_exchanges (issuer, jti, expires_at) VALUES (\(issuer), \(jti), \(expiresAt))
            ON CONFLICT DO NOTHING RETURNING 1
            """, as: Int.self)
        return !rows.isEmpty
    }

    private static func trustRules(_ text: String) -> [TrustRule] {
        StoredJSON.decode([TrustRule].self, text) ?? []
    }

    /// What `rules @>` is given to find the rule lists that name an issuer.
    private static func naming(issuer name: String) -> String {
        StoredJSON.encode([["issuer": name]])
    }
}
