import PostgresNIO

extension DBSession {
    /// A domain's object-store and purge targets in order, each as the JSON text it was stored as.
    public func objectTargets(domainID: Int64) async throws -> [String] {
        try await all(
            "SELECT spec::text FROM object_targets WHERE domain_id = \(domainID) ORDER BY position", as: String.self)
    }

    /// The domains that have object targets, in ID order (reconciliation's pass).
    public func domainsWithObjectTargets() async throws -> [Int64] {
        try await all("SELECT DISTINCT domain_id FROM object_targets ORDER BY domain_id", as: Int64.self)
    }

    /// Replaces a domain's object targets (in the caller's transaction).
    public func setObjectTargets(domainID: Int64, specs: [String]) async throws {
        try await run("DELETE FROM object_targets WHERE domain_id = \(domainID)")
        for (position, spec) in specs.enumerated() {
            try await run(
                """
                INSERT INTO object_targets (domain_id, position, spec) VALUES (\(domainID), \(position), \
                \(spec)::text::jsonb)
                """)
        }
        // Outcomes of targets no longer listed are history, not state.
        try await run(
            """
            DELETE FROM object_target_outcomes o WHERE o.domain_id = \(domainID) AND NOT EXISTS (SELECT 1 FROM \
            object_targets t WHERE t.domain_id = o.domain_id AND t.spec->>'name' = o.target)
            """)
    }

    public func recordObjectOutcome(domainID: Int64, target: String, ok: Bool, outcome: String) async throws {
        try await run(
            """
            INSERT INTO object_target_outcomes (domain_id, target, ok, outcome) VALUES (\(domainID), \(target), \
            \(ok), \(outcome)::text::jsonb)
            ON CONFLICT (domain_id, target) DO UPDATE SET ok = excluded.ok, outcome = excluded.outcome,
            attempted_at = now()
            """)
    }

    /// The last outcome of each of a domain's object targets: name → (ok, JSON text).
    public func objectOutcomes(domainID: Int64) async throws -> [String: (ok: Bool, outcome: String)] {
        var out: [String: (ok: Bool, outcome: String)] = [:]
        for (target, ok, outcome) in try await all(
            "SELECT target, ok, outcome::text FROM object_target_outcomes WHERE domain_id = \(domainID)",
            as: (String, Bool, String).self)
        {
            out[target] = (ok, outcome)
        }
        return out
    }
}

extension DBSession {
    /// The last write to each of a domain's web roots: root → (revision, ok, error).
    public func webRootOutcomes(domainID: Int64) async throws -> [String: (revision: Int, ok: Bool, error: String?)] {
        var out: [String: (revision: Int, ok: Bool, error: String?)] = [:]
        for (root, revision, ok, error) in try await all(
            "SELECT web_root, revision, ok, error FROM publish_targets WHERE domain_id = \(domainID)",
            as: (String, Int, Bool, String?).self)
        {
            out[root] = (revision, ok, error)
        }
        return out
    }
}
