import AASAModel
import Foundation
import PostgresNIO

extension DBSession {
    private static let domainColumns = """
        d.id, d.host,
        coalesce((SELECT array_agg(h.host ORDER BY h.host) FROM domain_hosts h WHERE h.domain_id = d.id AND NOT \
        h.is_primary), '{}'),
        d.substitution_variables::text, d.defaults::text, d.web_roots, d.created_at, d.updated_at, d.version,
        d.app_order, d.order_version, d.current_revision, d.auto_publish, d.legacy_root_path, d.expectations_version,
        (SELECT e.name FROM environments e WHERE e.id = d.environment_id)
        """
    private typealias DomainRow = (
        Int64, String, [String], String, String, [String], Date, Date, Int64, [String], Int64, Int?, Bool, Bool, Int64,
        String
    )

    private func domains(_ query: PostgresQuery) async throws -> [DomainRecord] {
        try await all(query, as: DomainRow.self).map { row in
            let defaults = JSONColumn.decode(row.4).objectValue
            return DomainRecord(
                id: row.0, host: row.1, aliases: row.2,
                substitutionVariables: Self.variables(from: JSONColumn.decode(row.3)),
                defaults: DomainDefaults(
                    caseSensitive: defaults?["caseSensitive"]?.boolValue,
                    percentEncoded: defaults?["percentEncoded"]?.boolValue),
                webRoots: row.5, createdAt: row.6, updatedAt: row.7, version: row.8,
                appOrder: row.9, orderVersion: row.10, currentRevision: row.11, autoPublish: row.12,
                legacyRootPath: row.13,
                expectationsVersion: row.14, environment: row.15)
        }
    }

    static func variables(from value: JSONValue) -> [SubstitutionVariable] {
        (value.objectValue ?? [:]).map { member in
            SubstitutionVariable(name: member.key, values: (member.value.arrayValue ?? []).compactMap(\.stringValue))
        }
    }

    static func json(_ variables: [SubstitutionVariable]) -> String {
        JSONColumn.encode(
            .object(JSONObject(variables.map { JSONMember($0.name, .array($0.values.map(JSONValue.string))) })))
    }

    static func json(_ defaults: DomainDefaults) -> String {
        var object = JSONObject()
        if let c = defaults.caseSensitive { object.append("caseSensitive", .bool(c)) }
        if let p = defaults.percentEncoded { object.append("percentEncoded", .bool(p)) }
        return JSONColumn.encode(.object(object))
    }

    public func listDomains() async throws -> [DomainRecord] {
        try await domains("SELECT \(unescaped: Self.domainColumns) FROM domains d ORDER BY d.host")
    }

    /// One page of domains by host: at most `limit` whose host sorts after `after` (keyset paging,
    /// so a page costs the same wherever it starts).
    public func listDomains(after: String?, limit: Int) async throws -> [DomainRecord] {
        try await domains(
            """
            SELECT \(unescaped: Self.domainColumns) FROM domains d
            WHERE \(after)::text IS NULL OR d.host > \(after) ORDER BY d.host LIMIT \(limit)
            """)
    }

    /// The domain whose primary host is `host` (punycode); locked for the transaction when `forUpdate`,
    /// which is how every change that touches a domain's document is serialised.
    public func domain(host: String, forUpdate: Bool = false) async throws -> DomainRecord? {
        try await domains(
            """
            SELECT \(unescaped: Self.domainColumns) FROM domains d WHERE d.host = \(host) \
            \(unescaped: forUpdate ? "FOR UPDATE" : "")
            """
        ).first
    }

    public func domain(id: Int64, forUpdate: Bool = false) async throws -> DomainRecord? {
        try await domains(
            """
            SELECT \(unescaped: Self.domainColumns) FROM domains d WHERE d.id = \(id) \
            \(unescaped: forUpdate ? "FOR UPDATE" : "")
            """
        ).first
    }

    /// Which domain answers to `name` (its host or one of its aliases).
    public func domainID(answeringTo name: String) async throws -> Int64? {
        try await first("SELECT domain_id FROM domain_hosts WHERE host = \(name)", as: Int64.self)
    }

    public func insertDomain(
        host: String, aliases: [String], variables: [SubstitutionVariable],
        defaults: DomainDefaults, webRoots: [String], autoPublish: Bool = false,
        legacyRootPath: Bool = false, environment: String? = nil
    ) async throws -> DomainRecord {
        // Without an environment named, the organisation's only one (NULL, refused, when it has several).
        let inserted = try await writeReturning(
            """
            INSERT INTO domains (host, substitution_variables, defaults, web_roots, auto_publish, legacy_root_path,
                                 environment_id)
            VALUES (\(host), \(Self.json(variables))::text::jsonb, \(Self.json(defaults))::text::jsonb, \(webRoots),
                    \(autoPublish), \(legacyRootPath),
                    coalesce((SELECT id FROM environments WHERE name = \(environment)), only_environment()))
            RETURNING id
            """, as: Int64.self)
        guard let id = inserted.first else { throw StoreError.duplicate(constraint: "domains_host_key") }
        try await write("INSERT INTO domain_hosts (host, domain_id, is_primary) VALUES (\(host), \(id), true)")
        try await replaceAliases(domainID: id, aliases: aliases)
        return try await domain(id: id)!
    }

    public func updateDomain(
        id: Int64, aliases: [String], variables: [SubstitutionVariable],
        defaults: DomainDefaults, webRoots: [String], autoPublish: Bool,
        legacyRootPath: Bool, environment: String? = nil
    ) async throws -> DomainRecord {
        try await write(
            """
            UPDATE domains SET substitution_variables = \(Self.json(variables))::text::jsonb,
            defaults = \(Self.json(defaults))::text::jsonb, web_roots = \(webRoots), auto_publish = \(autoPublish),
            legacy_root_path = \(legacyRootPath), updated_at = now(),
            environment_id = coalesce((SELECT id FROM environments WHERE name = \(environment)), environment_id),
            version = version + 1 WHERE id = \(id)
            """)
        try await replaceAliases(domainID: id, aliases: aliases)
        return try await domain(id: id)!
    }

    private func replaceAliases(domainID: Int64, aliases: [String]) async throws {
        try await write("DELETE FROM domain_hosts WHERE domain_id = \(domainID) AND NOT is_primary")
        for alias in aliases {
            try await write(
                "INSERT INTO domain_hosts (host, domain_id, is_primary) VALUES (\(alias), \(domainID), false)")
        }
    }

    public func updateOrder(domainID: Int64, apps: [String]) async throws {
        try await write(
            """
            UPDATE domains SET app_order = \(apps), order_version = order_version + 1 WHERE id = \(domainID)
            """)
    }

    public func deleteDomain(id: Int64) async throws {
        try await write("DELETE FROM domains WHERE id = \(id)")
    }

    /// Everything the domain's document is rendered from.
    public func snapshot(of domain: DomainRecord) async throws -> DomainSnapshot {
        if let memo = SnapshotMemo.current {
            return try await memo.snapshot(of: domain) { try await readSnapshot(of: domain) }
        }
        return try await readSnapshot(of: domain)
    }

    private func readSnapshot(of domain: DomainRecord) async throws -> DomainSnapshot {
        let grants = try await listGrants(domainID: domain.id)
        let ruleSets = try await listRuleSets(domainID: domain.id)
        let apps = try await apps(
            """
            SELECT \(unescaped: Self.appColumns)
            FROM apps a JOIN teams ON teams.id = a.team_id
            WHERE a.team_id IN (SELECT team_id FROM grants WHERE domain_id = \(domain.id))
               OR a.id IN (SELECT app_id FROM rule_sets WHERE domain_id = \(domain.id))
            ORDER BY a.app_id
            """)
        // A suspended team's apps leave the file (the kill switch); its stored rules stay.
        let suspended = try await suspensions(affecting: domain.id)
        let builds = try await builds(appPKs: apps.map(\.id))
        let listed = apps.flatMap(\.fingerprints) + builds.flatMap { $0.fingerprints.map(\.sha256) }
        let keys = apps.contains { $0.platform == .android } ? try await androidKeyFacts(domain, keys: listed) : nil
        guard !suspended.isEmpty else {
            return DomainSnapshot(
                domain: domain, grants: grants, apps: apps, ruleSets: ruleSets, builds: builds, androidKeys: keys)
        }
        let ids = Set(suspended.map(\.teamID))
        let appTeams = Dictionary(apps.map { ($0.id, $0.teamID) }, uniquingKeysWith: { a, _ in a })
        let names = Set(suspended.map(\.teamName))
        return DomainSnapshot(
            domain: domain, grants: grants.filter { !ids.contains($0.teamID) },
            apps: apps.filter { !ids.contains($0.teamID) },
            ruleSets: ruleSets.filter { !names.contains($0.teamName) }, suspendedTeams: names.sorted(),
            builds: builds.filter { !ids.contains(appTeams[$0.appPK] ?? -1) }, androidKeys: keys)
    }

    /// The facts an Android statement's key warnings need, in one round trip: whether the domain
    /// is production, and which of `keys` (those its statements list) are some package's `debug`
    /// key, found through the containment indexes of migration 0019.
    func androidKeyFacts(_ domain: DomainRecord, keys: [String]) async throws -> AndroidKeyFacts {
        let keys = Array(Set(keys))
        let rows = try await all(
            """
            SELECT NULL::text, NULL::text, \(unescaped: Self.productionEnvironment) = \(domain.environment)
            UNION ALL
            SELECT w.key, a.app_id, NULL FROM unnest(\(keys)::text[]) w(key)
            JOIN apps a ON a.key_labels @> jsonb_build_object(w.key, 'debug')
            UNION ALL
            SELECT w.key, b.identity, NULL FROM unnest(\(keys)::text[]) w(key)
            JOIN app_builds b
              ON b.fingerprints @> jsonb_build_array(jsonb_build_object('sha256', w.key, 'label', 'debug'))
            """, as: (String?, String?, Bool?).self)
        var debugKeys: [String: [String]] = [:]
        for case (let key?, let package?, _) in rows { debugKeys[key, default: []].append(package) }
        return AndroidKeyFacts(production: rows.first { $0.0 == nil }?.2 ?? false, debugKeys: debugKeys)
    }

    /// Domains other than `exceptID` that write into one of `webRoots`.
    public func domainsSharing(webRoots: [String], exceptID: Int64?) async throws -> [String] {
        try await all(
            """
            SELECT host FROM domains WHERE id IS DISTINCT FROM \(exceptID) AND web_roots && \(webRoots) ORDER BY host
            """, as: String.self)
    }
}
