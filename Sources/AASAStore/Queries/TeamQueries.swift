import Foundation
import PostgresNIO

extension DBSession {
    private static let teamColumns = "id, name, display_name, created_at, updated_at, version"
    typealias TeamRow = (Int64, String, String, Date, Date, Int64)

    static func team(_ row: TeamRow) -> TeamRecord {
        TeamRecord(id: row.0, name: row.1, displayName: row.2, createdAt: row.3, updatedAt: row.4, version: row.5)
    }

    private func teams(_ query: PostgresQuery) async throws -> [TeamRecord] {
        try await all(query, as: TeamRow.self).map(Self.team)
    }

    public func listTeams(onlyID: Int64? = nil) async throws -> [TeamRecord] {
        try await teams("SELECT \(unescaped: Self.teamColumns) FROM teams WHERE \(onlyID)::bigint IS NULL OR id = \(onlyID) ORDER BY name")
    }

    /// The team, locked for the rest of the transaction when `forUpdate`.
    public func team(named name: String, forUpdate: Bool = false) async throws -> TeamRecord? {
        if !forUpdate {
            return try await execute(Prepared.TeamByName(name: name)).first.map(Self.team)
        }
        return try await teams("SELECT \(unescaped: Self.teamColumns) FROM teams WHERE name = \(name) \(unescaped: forUpdate ? "FOR UPDATE" : "")").first
    }

    public func insertTeam(name: String, displayName: String) async throws -> TeamRecord {
        try await write("INSERT INTO teams (name, display_name) VALUES (\(name), \(displayName))")
        return try await team(named: name)!
    }

    public func updateTeam(id: Int64, displayName: String) async throws -> TeamRecord {
        try await teams("""
            UPDATE teams SET display_name = \(displayName), updated_at = now(), version = version + 1
            WHERE id = \(id) RETURNING \(unescaped: Self.teamColumns)
            """)[0]
    }

    public func deleteTeam(id: Int64) async throws {
        try await write("DELETE FROM teams WHERE id = \(id)")
    }
}
