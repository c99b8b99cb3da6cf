import Foundation
import PostgresNIO

extension DBSession {
    /// The organisation's guardrails (`domainID` nil) or one domain's; an empty record (version 0)
    /// when none were set.
    public func guardrails(domainID: Int64?) async throws -> GuardrailRecord {
        typealias Row = ([String], Int?, Int?, Int64)
        let row = try await first(
            """
            SELECT protected_paths, max_rules_per_team, max_bytes_per_team, version FROM guardrails
            WHERE domain_id IS NOT DISTINCT FROM \(domainID)
            """, as: Row.self)
        guard let row else { return GuardrailRecord(domainID: domainID) }
        return GuardrailRecord(
            domainID: domainID, protectedPaths: row.0, maxRulesPerTeam: row.1, maxBytesPerTeam: row.2, version: row.3)
    }

    /// The organisation's guardrails and the domain's, in one round trip (those never set left out).
    public func guardrailsApplying(to domainID: Int64) async throws -> [GuardrailRecord] {
        typealias Row = (Int64?, [String], Int?, Int?, Int64)
        return try await all(
            """
            SELECT domain_id, protected_paths, max_rules_per_team, max_bytes_per_team, version FROM guardrails
            WHERE domain_id IS NULL OR domain_id = \(domainID) ORDER BY domain_id NULLS FIRST
            """, as: Row.self
        ).map {
            GuardrailRecord(
                domainID: $0.0, protectedPaths: $0.1, maxRulesPerTeam: $0.2, maxBytesPerTeam: $0.3, version: $0.4)
        }
    }

    /// Replaces the guardrails (bumping the version) and returns them as stored.
    public func saveGuardrails(_ g: GuardrailRecord) async throws -> GuardrailRecord {
        // The global row has no unique key ON CONFLICT can name (NULL is distinct): lock it by hand.
        try await run("LOCK TABLE guardrails IN SHARE ROW EXCLUSIVE MODE")
        try await write(
            """
            WITH updated AS (
                UPDATE guardrails SET protected_paths = \(g.protectedPaths), max_rules_per_team = \(g.maxRulesPerTeam),
                    max_bytes_per_team = \(g.maxBytesPerTeam), version = version + 1, updated_at = now()
                WHERE domain_id IS NOT DISTINCT FROM \(g.domainID) RETURNING 1)
            INSERT INTO guardrails (domain_id, protected_paths, max_rules_per_team, max_bytes_per_team)
            SELECT \(g.domainID), \(g.protectedPaths), \(g.maxRulesPerTeam), \(g.maxBytesPerTeam)
            WHERE NOT EXISTS (SELECT 1 FROM updated)
            """)
        return try await guardrails(domainID: g.domainID)
    }

    private static let suspensionColumns =
        "s.team_id, t.name, s.domain_id, d.host, s.reason, s.created_by, s.created_at"
    private typealias SuspensionRow = (Int64, String, Int64?, String?, String, String, Date)

    private func suspensions(_ query: PostgresQuery) async throws -> [SuspensionRecord] {
        try await all(query, as: SuspensionRow.self).map {
            SuspensionRecord(
                teamID: $0.0, teamName: $0.1, domainID: $0.2, host: $0.3, reason: $0.4, createdBy: $0.5, createdAt: $0.6
            )
        }
    }

    /// The suspensions that take teams out of this domain's file (its own, and those of every
    /// domain); every suspension when `domainID` is nil.
    public func suspensions(affecting domainID: Int64?) async throws -> [SuspensionRecord] {
        try await suspensions(
            """
            SELECT \(unescaped: Self.suspensionColumns) FROM suspensions s JOIN teams t ON t.id = s.team_id
            LEFT JOIN domains d ON d.id = s.domain_id
            WHERE \(domainID)::bigint IS NULL OR s.domain_id IS NULL OR s.domain_id = \(domainID)
            ORDER BY t.name, d.host NULLS FIRST
            """)
    }

    /// False when the team is already suspended there.
    public func insertSuspension(teamID: Int64, domainID: Int64?, reason: String, createdBy: String) async throws
        -> Bool
    {
        try await first(
            """
            INSERT INTO suspensions (team_id, domain_id, reason, created_by) VALUES (\(teamID), \(domainID), \
            \(reason), \(createdBy))
            ON CONFLICT (team_id, coalesce(domain_id, 0)) DO NOTHING RETURNING 1
            """, as: Int.self) != nil
    }

    /// False when there was no such suspension.
    public func deleteSuspension(teamID: Int64, domainID: Int64?) async throws -> Bool {
        try await first(
            """
            DELETE FROM suspensions WHERE team_id = \(teamID) AND domain_id IS NOT DISTINCT FROM \(domainID) RETURNING 1
            """, as: Int.self) != nil
    }
}

extension DBSession {
    /// The forced protected-path openings of a domain, as (pattern, app ID).
    public func protectedPathExemptions(domainID: Int64) async throws -> [(pattern: String, appID: String)] {
        try await all(
            "SELECT pattern, app_id FROM protected_path_exemptions WHERE domain_id = \(domainID)",
            as: (String, String).self
        )
        .map { (pattern: $0.0, appID: $0.1) }
    }

    /// Makes the domain's exemptions exactly `exemptions`.
    public func setProtectedPathExemptions(domainID: Int64, _ exemptions: [(pattern: String, appID: String)])
        async throws
    {
        try await run("DELETE FROM protected_path_exemptions WHERE domain_id = \(domainID)")
        guard !exemptions.isEmpty else { return }
        try await run(
            """
            INSERT INTO protected_path_exemptions (domain_id, pattern, app_id)
            SELECT \(domainID), p, a FROM unnest(\(exemptions.map(\.pattern))::text[], \
            \(exemptions.map(\.appID))::text[]) AS u(p, a)
            ON CONFLICT DO NOTHING
            """)
    }
}
