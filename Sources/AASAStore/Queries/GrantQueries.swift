import AASAModel
import Foundation
import PostgresNIO

extension DBSession {
    private static let grantColumns = """
        g.domain_id, d.host, g.team_id, t.name, g.path_prefixes, g.services, g.created_at, g.updated_at, g.version
        """
    private typealias GrantRow = (Int64, String, Int64, String, [String], [String], Date, Date, Int64)

    private func grants(_ query: PostgresQuery) async throws -> [GrantRecord] {
        try await all(query, as: GrantRow.self).map {
            GrantRecord(
                domainID: $0.0, host: $0.1, teamID: $0.2, teamName: $0.3, pathPrefixes: $0.4,
                services: $0.5.compactMap(AppService.init(rawValue:)), createdAt: $0.6, updatedAt: $0.7, version: $0.8)
        }
    }

    public func listGrants(domainID: Int64) async throws -> [GrantRecord] {
        try await grants(
            """
            SELECT \(unescaped: Self.grantColumns) FROM grants g JOIN domains d ON d.id = g.domain_id
            JOIN teams t ON t.id = g.team_id WHERE g.domain_id = \(domainID) ORDER BY t.name
            """)
    }

    /// Every grant a team holds, by host.
    public func listGrants(teamID: Int64) async throws -> [GrantRecord] {
        try await grants(
            """
            SELECT \(unescaped: Self.grantColumns) FROM grants g JOIN domains d ON d.id = g.domain_id
            JOIN teams t ON t.id = g.team_id WHERE g.team_id = \(teamID) ORDER BY d.host
            """)
    }

    public func grant(domainID: Int64, teamID: Int64) async throws -> GrantRecord? {
        try await grants(
            """
            SELECT \(unescaped: Self.grantColumns) FROM grants g JOIN domains d ON d.id = g.domain_id
            JOIN teams t ON t.id = g.team_id WHERE g.domain_id = \(domainID) AND g.team_id = \(teamID)
            """
        ).first
    }

    /// Creates the grant or replaces its prefixes and services (bumping its version).
    public func upsertGrant(domainID: Int64, teamID: Int64, pathPrefixes: [String], services: [AppService]) async throws
        -> GrantRecord
    {
        try await write(
            """
            INSERT INTO grants (domain_id, team_id, path_prefixes, services)
            VALUES (\(domainID), \(teamID), \(pathPrefixes), \(services.map(\.rawValue)))
            ON CONFLICT (domain_id, team_id) DO UPDATE SET path_prefixes = excluded.path_prefixes, services = \
            excluded.services,
            updated_at = now(), version = grants.version + 1
            """)
        return try await grant(domainID: domainID, teamID: teamID)!
    }

    public func deleteGrant(domainID: Int64, teamID: Int64) async throws {
        try await write("DELETE FROM grants WHERE domain_id = \(domainID) AND team_id = \(teamID)")
    }
}
