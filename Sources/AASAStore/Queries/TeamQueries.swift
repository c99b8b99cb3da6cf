import Foundation
import PostgresNIO

extension DBSession {
    private static let teamColumns = "id, name, display_name, apple_team_ids, created_at, updated_at, version"
    typealias TeamRow = (Int64, String, String, [String], Date, Date, Int64)

    static func team(_ row: TeamRow) -> TeamRecord {
        TeamRecord(
            id: row.0, name: row.1, displayName: row.2, appleTeamIDs: row.3, createdAt: row.4, updatedAt: row.5,
            version: row.6)
    }

    private func teams(_ query: PostgresQuery) async throws -> [TeamRecord] {
        try await all(query, as: TeamRow.self).map(Self.team)
    }

    /// One page of teams by name (only `onlyID` when given): at most `limit` named after `after`.
    public func listTeams(onlyID: Int64?, after: String?, limit: Int) async throws -> [TeamRecord] {
        try await teams(
            """
            SELECT \(unescaped: Self.teamColumns) FROM teams
            WHERE (\(onlyID)::bigint IS NULL OR id = \(onlyID)) AND (\(after)::text IS NULL OR name > \(after))
            ORDER BY name LIMIT \(limit)
            """)
    }

    /// The team, locked for the rest of the transaction when `forUpdate`.
    public func team(named name: String, forUpdate: Bool = false) async throws -> TeamRecord? {
        if !forUpdate {
            return try await execute(Prepared.TeamByName(parameter: name)).first.map(Self.team)
        }
        return try await teams(
            """
            SELECT \(unescaped: Self.teamColumns) FROM teams WHERE name = \(name) \
            \(unescaped: forUpdate ? "FOR UPDATE" : "")
            """
        ).first
    }

    public func insertTeam(name: String, displayName: String) async throws -> TeamRecord {
        try await write("INSERT INTO teams (name, display_name) VALUES (\(name), \(displayName))")
        return try await team(named: name)!
    }

    public func updateTeam(id: Int64, displayName: String, appleTeamIDs: [String]) async throws -> TeamRecord {
        try await teams(
            """
            UPDATE teams SET display_name = \(displayName), apple_team_ids = \(appleTeamIDs), updated_at = now(), \
            version = version + 1
            WHERE id = \(id) RETURNING \(unescaped: Self.teamColumns)
            """)[0]
    }

    /// The team other than `exceptTeamID` that claims this Apple Team ID prefix, if one does.
    public func teamClaiming(appleTeamID prefix: String, exceptTeamID: Int64? = nil) async throws -> String? {
        try await first(
            """
            SELECT name FROM teams WHERE \(prefix) = ANY (apple_team_ids) AND id IS DISTINCT FROM \(exceptTeamID)
            """, as: String.self)
    }

    /// App IDs registered under `prefix` by teams other than `teamID`.
    public func appIDs(withPrefix prefix: String, notOfTeam teamID: Int64) async throws -> [String] {
        try await all(
            """
            SELECT app_id FROM apps WHERE split_part(app_id, '.', 1) = \(prefix) AND team_id <> \(teamID) ORDER BY \
            app_id LIMIT 5
            """, as: String.self)
    }

    public func deleteTeam(id: Int64) async throws {
        try await write("DELETE FROM teams WHERE id = \(id)")
    }
}
