import AASAModel
import Foundation
import PostgresNIO

extension DBSession {
    /// The organisation's environments in promotion order (the last is production).
    public func listEnvironments() async throws -> [EnvironmentRecord] {
        try await all(
            """
            SELECT e.id, e.name, e.position, (SELECT count(*)::bigint FROM domains d WHERE d.environment_id = e.id)
            FROM environments e ORDER BY e.position, e.id
            """, as: (Int64, String, Int, Int).self
        ).map { EnvironmentRecord(id: $0.0, name: $0.1, position: $0.2, domainCount: $0.3) }
    }

    /// The production environment's name as a subquery: the last in promotion order. The one place
    /// that says which environment is production, in SQL, so a larger query reads it without a
    /// round trip of its own (`androidKeyFacts`).
    static let productionEnvironment = "(SELECT name FROM environments ORDER BY position DESC, id DESC LIMIT 1)"

    /// Whether `environment` is production.
    public func isProduction(environment: String) async throws -> Bool {
        let row = try await first(
            "SELECT \(unescaped: Self.productionEnvironment) = \(environment)", as: Bool?.self)
        return (row ?? nil) ?? false
    }

    /// Makes `names` the environments, in this order: new ones are added, missing ones removed
    /// (the caller has seen that no domain or build is in them). The table is locked until commit,
    /// so two replacements do not interleave.
    public func replaceEnvironments(_ names: [String]) async throws {
        try await run("LOCK TABLE environments IN SHARE ROW EXCLUSIVE MODE")
        try await write("DELETE FROM environments WHERE NOT (name = ANY(\(names)))")
        for (position, name) in names.enumerated() {
            try await write(
                """
                INSERT INTO environments (name, position) VALUES (\(name), \(position))
                ON CONFLICT (name) DO UPDATE SET position = excluded.position
                """)
        }
    }

    /// How many builds each environment has (for refusing to remove one that has some).
    public func buildCounts() async throws -> [String: Int] {
        let rows = try await all(
            """
            SELECT e.name, count(*)::bigint FROM app_builds b JOIN environments e ON e.id = b.environment_id
            GROUP BY e.name
            """, as: (String, Int).self)
        return Dictionary(rows.map { ($0.0, $0.1) }, uniquingKeysWith: { a, _ in a })
    }

    /// The IDs of the domains of one environment, by host.
    public func domainIDs(inEnvironment name: String) async throws -> [Int64] {
        try await all(
            """
            SELECT d.id FROM domains d JOIN environments e ON e.id = d.environment_id WHERE e.name = \(name)
            ORDER BY d.host
            """, as: Int64.self)
    }
}

extension DBSession {
    private static let buildColumns = """
        b.app_id, a.app_id, e.name, b.identity, b.fingerprints::text, b.play_signing_absent
        """
    private typealias BuildRow = (Int64, String, String, String, String, Bool)

    private func builds(_ query: PostgresQuery) async throws -> [BuildRecord] {
        try await all(query, as: BuildRow.self).map { row in
            let fingerprints = (JSONColumn.decode(row.4).arrayValue ?? []).compactMap { value -> LabelledFingerprint? in
                guard let sha = value.objectValue?["sha256"]?.stringValue,
                    let label = value.objectValue?["label"]?.stringValue
                else { return nil }
                return LabelledFingerprint(sha256: sha, label: label)
            }
            return BuildRecord(
                appPK: row.0, appID: row.1, environment: row.2, identity: row.3, fingerprints: fingerprints,
                playSigningAbsent: row.5)
        }
    }

    /// Every build of these apps, in promotion order.
    public func builds(appPKs: [Int64]) async throws -> [BuildRecord] {
        guard !appPKs.isEmpty else { return [] }
        return try await builds(
            """
            SELECT \(unescaped: Self.buildColumns) FROM app_builds b JOIN apps a ON a.id = b.app_id
            JOIN environments e ON e.id = b.environment_id
            WHERE b.app_id = ANY(\(appPKs)) ORDER BY a.app_id, e.position
            """)
    }

    /// Builds whose identity is one of `identities`.
    public func builds(identities: [String]) async throws -> [BuildRecord] {
        guard !identities.isEmpty else { return [] }
        return try await builds(
            """
            SELECT \(unescaped: Self.buildColumns) FROM app_builds b JOIN apps a ON a.id = b.app_id
            JOIN environments e ON e.id = b.environment_id
            WHERE b.identity = ANY(\(identities)) ORDER BY b.identity
            """)
    }

    /// Replaces all of an app's builds.
    public func replaceBuilds(appPK: Int64, _ builds: [BuildRecord]) async throws {
        try await write("DELETE FROM app_builds WHERE app_id = \(appPK)")
        for build in builds {
            let fingerprints = JSONColumn.encode(
                .array(
                    build.fingerprints.map {
                        .object(["sha256": .string($0.sha256), "label": .string($0.label)])
                    }))
            do {
                try await write(
                    """
                    INSERT INTO app_builds (app_id, environment_id, identity, fingerprints, play_signing_absent)
                    SELECT \(appPK), e.id, \(build.identity), \(fingerprints)::text::jsonb, \(build.playSigningAbsent)
                    FROM environments e WHERE e.name = \(build.environment)
                    """)
            } catch let error as PSQLError where error.isUniqueViolation {
                throw StoreError.duplicate(constraint: error.constraintName)
            }
        }
        try await write("UPDATE apps SET version = version + 1, updated_at = now() WHERE id = \(appPK)")
    }
}

extension DBSession {
    /// Every build of the apps registered under these IDs.
    public func builds(ofAppIDs appIDs: [String]) async throws -> [BuildRecord] {
        guard !appIDs.isEmpty else { return [] }
        let pks = try await all("SELECT id FROM apps WHERE app_id = ANY(\(appIDs))", as: Int64.self)
        return try await builds(appPKs: pks)
    }
}
