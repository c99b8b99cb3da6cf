import AASAModel
import Foundation
import PostgresNIO

extension DBSession {
    private static let metadataColumns = """
        domain_id, number, sha256, octet_length(bytes), actor_token, actor_name, reason, created_at, diff::text, rollback_of
        """
    private typealias MetadataRow = (Int64, Int, String, Int, UUID?, String, String, Date, String?, Int?)

    private func revisions(_ query: PostgresQuery) async throws -> [RevisionRecord] {
        try await all(query, as: MetadataRow.self).map {
            RevisionRecord(domainID: $0.0, number: $0.1, bytes: [], sha256: $0.2, byteCount: $0.3, actorToken: $0.4,
                           actorName: $0.5, reason: $0.6, createdAt: $0.7, diff: JSONColumn.decode($0.8), rollbackOf: $0.9)
        }
    }

    /// A revision with its bytes.
    public func revision(domainID: Int64, number: Int) async throws -> RevisionRecord? {
        guard var record = try await revisions("""
            SELECT \(unescaped: Self.metadataColumns) FROM revisions WHERE domain_id = \(domainID) AND number = \(number)
            """).first else { return nil }
        let bytes: Data? = try await first("SELECT bytes FROM revisions WHERE domain_id = \(domainID) AND number = \(number)",
                                           as: Data.self)
        record.bytes = bytes.map { [UInt8]($0) } ?? []
        return record
    }

    /// Metadata only, newest first.
    public func listRevisions(domainID: Int64, before: Int?, limit: Int) async throws -> [RevisionRecord] {
        try await revisions("""
            SELECT \(unescaped: Self.metadataColumns) FROM revisions
            WHERE domain_id = \(domainID) AND (\(before)::integer IS NULL OR number < \(before))
            ORDER BY number DESC LIMIT \(limit)
            """)
    }

    public func insertRevision(_ r: RevisionRecord) async throws {
        try await write("""
            INSERT INTO revisions (domain_id, number, bytes, sha256, actor_token, actor_name, reason, diff, rollback_of)
            VALUES (\(r.domainID), \(r.number), \(Data(r.bytes)), \(r.sha256), \(r.actorToken), \(r.actorName), \(r.reason),
                    \(r.diff.map(JSONColumn.encode))::text::jsonb, \(r.rollbackOf))
            """)
        try await write("UPDATE domains SET current_revision = \(r.number) WHERE id = \(r.domainID)")
    }

    /// Tells every replica listening on `aasa_revisions` that this host's current revision changed.
    public func notifyRevision(host: String) async throws {
        try await run("SELECT pg_notify('aasa_revisions', \(host))")
    }

    public func recordTarget(domainID: Int64, webRoot: String, revision: Int, ok: Bool, error: String?) async throws {
        try await run("""
            INSERT INTO publish_targets (domain_id, web_root, revision, ok, error) VALUES (\(domainID), \(webRoot), \(revision), \(ok), \(error))
            ON CONFLICT (domain_id, web_root) DO UPDATE SET revision = excluded.revision, ok = excluded.ok,
            error = excluded.error, attempted_at = now()
            """)
    }

    /// The current revision of every domain (or of one), with the names it answers to.
    public func servedRevisions(host: String? = nil) async throws -> [ServedRevision] {
        typealias Row = (String, [String], Int, Data, String)
        return try await all("""
            SELECT d.host,
                   coalesce((SELECT array_agg(h.host) FROM domain_hosts h WHERE h.domain_id = d.id AND NOT h.is_primary), '{}'),
                   r.number, r.bytes, r.sha256
            FROM domains d JOIN revisions r ON r.domain_id = d.id AND r.number = d.current_revision
            WHERE \(host)::text IS NULL OR d.host = \(host)
            """, as: Row.self).map {
            ServedRevision(host: $0.0, aliases: $0.1, number: $0.2, bytes: [UInt8]($0.3), sha256: $0.4)
        }
    }

    /// Serialises publishing of one domain across every replica, for as long as this session holds it.
    public func lockPublishing(domainID: Int64) async throws {
        try await run("SELECT pg_advisory_lock(\(Int32(0x6161)), \(Int32(truncatingIfNeeded: domainID)))")
    }

    public func unlockPublishing(domainID: Int64) async throws {
        try await run("SELECT pg_advisory_unlock(\(Int32(0x6161)), \(Int32(truncatingIfNeeded: domainID)))")
    }
}
