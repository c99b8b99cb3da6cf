import Foundation
import PostgresNIO

/// One provider group's grant in the console (`migrations/0021_console_oidc.sql`): a team with
/// `read` or `write`, or, with no team, the organisation `admin`.
public struct ConsoleGroupMapping: Sendable, Equatable, Codable {
    public var provider: String
    public var group: String
    /// nil for `admin`.
    public var team: String?
    public var role: String

    public init(provider: String, group: String, team: String?, role: String) {
        self.provider = provider
        self.group = group
        self.team = team
        self.role = role
    }
}

extension DBSession {
    /// Every mapping, in the order they were set, and the list's version (its ETag).
    public func consoleMappings(forUpdate: Bool = false) async throws -> (
        mappings: [ConsoleGroupMapping], version: Int64
    ) {
        let lock = forUpdate ? "FOR UPDATE" : ""
        let query: PostgresQuery = "SELECT version FROM console_mapping_versions \(unescaped: lock)"
        let version: Int64 = try await first(query, as: Int64.self) ?? 1
        return (try await mappings(provider: nil), version)
    }

    /// The mappings, in their order, each with its team's name: every one (`provider` nil), or
    /// those of `provider` that name one of `groups`.
    private func mappings(provider: String?, groups: [String] = []) async throws -> [ConsoleGroupMapping] {
        try await all(
            """
            SELECT m.provider, m.group_name, teams.name, m.role FROM console_group_mappings m
            LEFT JOIN teams ON teams.id = m.team_id
            WHERE \(provider == nil) OR (m.provider = \(provider ?? "") AND m.group_name = ANY(\(groups)))
            ORDER BY m.position
            """, as: (String, String, String?, String).self
        ).map { ConsoleGroupMapping(provider: $0.0, group: $0.1, team: $0.2, role: $0.3) }
    }

    /// Replaces the list (teams already resolved to IDs by the caller) and moves its version on.
    public func replaceConsoleMappings(_ mappings: [(ConsoleGroupMapping, teamID: Int64?)]) async throws -> Int64 {
        try await run("DELETE FROM console_group_mappings")
        // One statement for the whole list (up to 500), not one round trip a mapping; 0 stands
        // for no team (admin), as identity columns start at 1.
        try await run(
            """
            INSERT INTO console_group_mappings (position, provider, group_name, team_id, role)
            SELECT u.position - 1, u.provider, u.group_name, NULLIF(u.team_id, 0), u.role
            FROM unnest(\(mappings.map(\.0.provider))::text[], \(mappings.map(\.0.group))::text[], \
            \(mappings.map { $0.teamID ?? 0 })::bigint[], \(mappings.map(\.0.role))::text[])
                WITH ORDINALITY AS u(provider, group_name, team_id, role, position)
            """)
        let version: Int64? = try await first(
            "UPDATE console_mapping_versions SET version = version + 1, updated_at = now() RETURNING version",
            as: Int64.self)
        return version ?? 1
    }

    /// The mappings of `provider` that name one of `groups`: what a person in those groups gets.
    public func consoleGrants(provider: String, groups: [String]) async throws -> [ConsoleGroupMapping] {
        guard !groups.isEmpty else { return [] }
        return try await mappings(provider: provider, groups: groups)
    }
}
