import AASAModel
import Foundation
import PostgresNIO

extension DBSession {
    static let appColumns = """
        a.id, a.app_id, a.team_id, teams.name, a.services, a.created_at, a.updated_at, a.version, a.platform, \
        a.fingerprints,
        (SELECT s.app_id FROM apps s WHERE s.id = a.rules_from), a.key_labels::text
        """
    typealias AppRow = (Int64, String, Int64, String, [String], Date, Date, Int64, String, [String], String?, String)

    static func app(_ row: AppRow) -> AppRecord {
        AppRecord(
            id: row.0, appID: row.1, teamID: row.2, teamName: row.3,
            services: row.4.compactMap(AppService.init(rawValue:)),
            createdAt: row.5, updatedAt: row.6, version: row.7, platform: AppPlatform(rawValue: row.8) ?? .ios,
            fingerprints: row.9, keyLabels: StoredJSON.decode([String: String].self, row.11) ?? [:], rulesFrom: row.10)
    }

    func apps(_ query: PostgresQuery) async throws -> [AppRecord] {
        try await all(query, as: AppRow.self).map(Self.app)
    }

    public func listApps(teamID: Int64) async throws -> [AppRecord] {
        try await execute(Prepared.AppsOfTeam(parameter: teamID)).map(Self.app)
    }

    public func app(appID: String, forUpdate: Bool = false) async throws -> AppRecord? {
        try await apps(
            """
            SELECT \(unescaped: Self.appColumns) FROM apps a JOIN teams ON teams.id = a.team_id
            WHERE a.app_id = \(appID) \(unescaped: forUpdate ? "FOR UPDATE OF a" : "")
            """
        ).first
    }

    /// App ID → team name, for those of `appIDs` that are registered.
    public func teamNames(ofApps appIDs: [String]) async throws -> [String: String] {
        let rows = try await all(
            """
            SELECT a.app_id, t.name FROM apps a JOIN teams t ON t.id = a.team_id WHERE a.app_id = ANY(\(appIDs))
            """, as: (String, String).self)
        return Dictionary(rows.map { ($0.0, $0.1) }, uniquingKeysWith: { a, _ in a })
    }

    /// Those of `appIDs` that are Android apps.
    public func androidAppIDs(among appIDs: [String]) async throws -> Set<String> {
        guard !appIDs.isEmpty else { return [] }
        return Set(
            try await all(
                "SELECT app_id FROM apps WHERE platform = 'android' AND app_id = ANY(\(appIDs))", as: String.self))
    }

    public func countApps(teamID: Int64) async throws -> Int {
        let count: Int? = try await first("SELECT count(*)::bigint FROM apps WHERE team_id = \(teamID)", as: Int.self)
        return count ?? 0
    }

    /// Registers an app; nil (nothing written) when a build of another app already has this ID:
    /// an app cannot take a build's identity (`builds(identities:)` says whose).
    public func insertApp(
        appID: String, teamID: Int64, services: [AppService], platform: AppPlatform = .ios,
        fingerprints: [String] = [], keyLabels: [String: String] = [:], rulesFrom: Int64? = nil
    ) async throws -> AppRecord? {
        // The build check, the insert and the record read back in one round trip (issue 23: app
        // create's statements).
        let rows = try await writeReturning(
            """
            WITH a AS (
                INSERT INTO apps (app_id, team_id, services, platform, fingerprints, rules_from, key_labels)
                SELECT \(appID), \(teamID), \(services.map(\.rawValue)), \(platform.rawValue), \(fingerprints), \
            \(rulesFrom), \(StoredJSON.encode(keyLabels))::jsonb
                WHERE NOT EXISTS (SELECT 1 FROM app_builds WHERE identity = \(appID))
                RETURNING *)
            SELECT \(unescaped: Self.appColumns) FROM a JOIN teams ON teams.id = a.team_id
            """, as: AppRow.self)
        return rows.first.map(Self.app)
    }

    /// `keyLabels` are kept for the fingerprints that stay (the caller passes what it means to keep).
    public func updateApp(
        id: Int64, teamID: Int64, services: [AppService], fingerprints: [String], keyLabels: [String: String]
    ) async throws {
        try await write(
            """
            UPDATE apps SET team_id = \(teamID), services = \(services.map(\.rawValue)), fingerprints = \(fingerprints),
            key_labels = \(StoredJSON.encode(keyLabels.filter { fingerprints.contains($0.key) }))::jsonb,
            updated_at = now(), version = version + 1 WHERE id = \(id)
            """)
    }

    /// Makes an Android app follow `source`'s rules (nil: its own).
    public func setRulesFrom(id: Int64, source: Int64?) async throws {
        try await write(
            "UPDATE apps SET rules_from = \(source), updated_at = now(), version = version + 1 WHERE id = \(id)")
    }

    /// The Android apps that follow this app's rules.
    public func followers(appPK: Int64) async throws -> [String] {
        try await all("SELECT app_id FROM apps WHERE rules_from = \(appPK) ORDER BY app_id", as: String.self)
    }

    public func deleteApp(id: Int64) async throws {
        try await write("DELETE FROM apps WHERE id = \(id)")
    }

    /// The domains on which the app has rules, for re-validating them when the app changes.
    public func domainIDsWithRules(appPK: Int64) async throws -> [Int64] {
        try await all("SELECT domain_id FROM rule_sets WHERE app_id = \(appPK) ORDER BY domain_id", as: Int64.self)
    }

    /// The domains on which the team holds a grant.
    public func domainIDsGranted(teamID: Int64) async throws -> [Int64] {
        try await all("SELECT domain_id FROM grants WHERE team_id = \(teamID) ORDER BY domain_id", as: Int64.self)
    }

    /// The domains whose file the team's apps can be in: where it holds a grant or has rules.
    public func domainIDsOfTeam(teamID: Int64) async throws -> [Int64] {
        try await all(
            """
            SELECT domain_id FROM grants WHERE team_id = \(teamID)
            UNION SELECT rs.domain_id FROM rule_sets rs JOIN apps a ON a.id = rs.app_id WHERE a.team_id = \(teamID)
            ORDER BY 1
            """, as: Int64.self)
    }
}
