import AASAModel
import Foundation
import PostgresNIO

extension DBSession {
    private static let metadataColumns = """
        domain_id, number, sha256, octet_length(bytes), actor_token, actor_name, reason, created_at, diff::text, \
        rollback_of, overrides::text, promoted_from_host, promoted_from_revision, promoted_from_draft_sha256, \
        promoted_from_draft_base
        """
    private typealias MetadataRow = (
        Int64, Int, String, Int, UUID?, String, String, Date, String?, Int?, String, String?, Int?, String?, Int?
    )

    private func revisions(_ query: PostgresQuery) async throws -> [RevisionRecord] {
        try await all(query, as: MetadataRow.self).map {
            var record = RevisionRecord(
                domainID: $0.0, number: $0.1, bytes: [], sha256: $0.2, byteCount: $0.3, actorToken: $0.4,
                actorName: $0.5, reason: $0.6, createdAt: $0.7, diff: JSONColumn.decode($0.8), rollbackOf: $0.9,
                overrides: JSONColumn.decode($0.10))
            record.promotedFrom = PromotionSource(host: $0.11, revision: $0.12, draftSHA256: $0.13, draftBase: $0.14)
            return record
        }
    }

    /// A revision with its bytes, in one round trip.
    public func revision(domainID: Int64, number: Int) async throws -> RevisionRecord? {
        typealias Row = (
            Int64, Int, String, Int, UUID?, String, String, Date, String?, Int?, String, String?, Int?, String?, Int?,
            Data
        )
        return try await all(
            """
            SELECT \(unescaped: Self.metadataColumns), bytes FROM revisions WHERE domain_id = \(domainID) AND number \
            = \(number)
            """, as: Row.self
        ).first.map {
            var record = RevisionRecord(
                domainID: $0.0, number: $0.1, bytes: [UInt8]($0.15), sha256: $0.2, byteCount: $0.3, actorToken: $0.4,
                actorName: $0.5, reason: $0.6, createdAt: $0.7, diff: JSONColumn.decode($0.8), rollbackOf: $0.9,
                overrides: JSONColumn.decode($0.10))
            record.promotedFrom = PromotionSource(host: $0.11, revision: $0.12, draftSHA256: $0.13, draftBase: $0.14)
            return record
        }
    }

    /// Metadata only, newest first.
    public func listRevisions(domainID: Int64, before: Int?, limit: Int) async throws -> [RevisionRecord] {
        try await revisions(
            """
            SELECT \(unescaped: Self.metadataColumns) FROM revisions
            WHERE domain_id = \(domainID) AND (\(before)::integer IS NULL OR number < \(before))
            ORDER BY number DESC LIMIT \(limit)
            """)
    }

    /// Stores the revision and makes it the domain's current one, in one statement.
    public func insertRevision(_ r: RevisionRecord) async throws {
        try await write(
            """
            WITH inserted AS (
                INSERT INTO revisions (domain_id, number, bytes, sha256, actor_token, actor_name, reason, diff, \
            rollback_of, overrides, promoted_from_host, promoted_from_revision, promoted_from_draft_sha256, \
            promoted_from_draft_base)
                VALUES (\(r.domainID), \(r.number), \(Data(r.bytes)), \(r.sha256), \(r.actorToken), \(r.actorName), \
            \(r.reason),
                        \(r.diff.map(JSONColumn.encode))::text::jsonb, \(r.rollbackOf), \
            \(JSONColumn.encode(r.overrides))::text::jsonb,
                        \(r.promotedFrom?.host), \(r.promotedFrom?.revision), \(r.promotedFrom?.draftSHA256), \
            \(r.promotedFrom?.draftBase))
                RETURNING domain_id, number)
            UPDATE domains SET current_revision = inserted.number FROM inserted WHERE domains.id = inserted.domain_id
            """)
    }

    /// The domain's current revision, nil before its first publish.
    public func currentRevision(of domain: DomainRecord) async throws -> RevisionRecord? {
        guard let number = domain.currentRevision else { return nil }
        return try await revision(domainID: domain.id, number: number)
    }

    /// Tells every replica listening on `aasa_revisions` that this host's current revision changed.
    public func notifyRevision(host: String) async throws {
        try await run("SELECT pg_notify('aasa_revisions', \(host))")
    }

    public func recordTarget(domainID: Int64, webRoot: String, revision: Int, ok: Bool, error: String?) async throws {
        try await run(
            """
            INSERT INTO publish_targets (domain_id, web_root, revision, ok, error) VALUES (\(domainID), \(webRoot), \
            \(revision), \(ok), \(error))
            ON CONFLICT (domain_id, web_root) DO UPDATE SET revision = excluded.revision, ok = excluded.ok,
            error = excluded.error, attempted_at = now()
            """)
    }

    /// The current revision of every domain (or of one), with the names it answers to.
    public func servedRevisions(host: String? = nil) async throws -> [ServedRevision] {
        try await served(
            join: "JOIN revisions r ON r.domain_id = d.id AND r.number = d.current_revision", host: host)
    }

    /// The current assetlinks.json of every domain (or of one) that has one, with the names it answers to.
    public func servedAssetLinks(host: String? = nil) async throws -> [ServedRevision] {
        try await servedFiles(.assetLinks, host: host)
    }

    /// The current revision of a file of its own stream, for every domain (or one) that has one.
    public func servedFiles(_ stream: RevisionStream, host: String? = nil) async throws -> [ServedRevision] {
        // Such a revision is current by being the newest: domains keep no pointer to it.
        try await served(
            join: "JOIN LATERAL (SELECT number, bytes, sha256 FROM \(stream.table) WHERE domain_id = d.id "
                + "ORDER BY number DESC LIMIT 1) r ON true",
            host: host)
    }

    /// One served file of every domain (or of one): `join` picks each domain's current revision as `r`
    /// (a constant of this file, never input).
    private func served(join: String, host: String?) async throws -> [ServedRevision] {
        typealias Row = (String, [String], Int, Data, String)
        return try await all(
            """
            SELECT d.host,
                   coalesce((SELECT array_agg(h.host) FROM domain_hosts h WHERE h.domain_id = d.id AND NOT \
            h.is_primary), '{}'),
                   r.number, r.bytes, r.sha256
            FROM domains d \(unescaped: join)
            WHERE \(host)::text IS NULL OR d.host = \(host)
            """, as: Row.self
        ).map {
            ServedRevision(host: $0.0, aliases: $0.1, number: $0.2, bytes: [UInt8]($0.3), sha256: $0.4)
        }
    }
}

extension DBSession {
    /// The newest revision of the domain with these bytes (by SHA-256), nil when none has them.
    public func revisionNumber(domainID: Int64, sha256: String) async throws -> Int? {
        try await first(
            """
            SELECT number FROM revisions WHERE domain_id = \(domainID) AND sha256 = \(sha256) ORDER BY number DESC \
            LIMIT 1
            """, as: Int.self)
    }
}
