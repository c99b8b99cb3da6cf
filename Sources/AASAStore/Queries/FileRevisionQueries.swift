import Foundation
import PostgresNIO

/// The revision streams of a domain's files beside the AASA's (`revisions`): assetlinks.json's and
/// `/.well-known/webauthn`'s, one table each, one shape. The newest revision is the current one: a
/// rollback is a new revision with `rollbackOf`.
public enum RevisionStream: String, Sendable, CaseIterable {
    case assetLinks = "assetlinks_revisions"
    case webauthn = "webauthn_revisions"

    /// The table, a constant of this type (never input).
    var table: String { rawValue }
}

extension DBSession {
    private typealias FileRevisionRow = (
        Int64, Int, String, Int, UUID?, String, String, Date, Int?, String?, Int?, String?, Int?, Data
    )

    private func fileRevisions(_ query: PostgresQuery) async throws -> [RevisionRecord] {
        try await all(query, as: FileRevisionRow.self).map {
            var record = RevisionRecord(
                domainID: $0.0, number: $0.1, bytes: [UInt8]($0.13), sha256: $0.2, byteCount: $0.3, actorToken: $0.4,
                actorName: $0.5, reason: $0.6, createdAt: $0.7, diff: nil, rollbackOf: $0.8)
            record.promotedFrom = PromotionSource(host: $0.9, revision: $0.10, draftSHA256: $0.11, draftBase: $0.12)
            return record
        }
    }

    /// Columns of `FileRevisionRow`; `withBytes: false` reads an empty `bytes`.
    private static func fileColumns(withBytes: Bool) -> String {
        "domain_id, number, sha256, octet_length(bytes), actor_token, actor_name, reason, created_at, rollback_of, "
            + "promoted_from_host, promoted_from_revision, promoted_from_draft_sha256, promoted_from_draft_base, "
            + (withBytes ? "bytes" : "''::bytea")
    }

    public func fileRevision(_ stream: RevisionStream, domainID: Int64, number: Int) async throws -> RevisionRecord? {
        try await fileRevisions(
            """
            SELECT \(unescaped: Self.fileColumns(withBytes: true)) FROM \(unescaped: stream.table)
            WHERE domain_id = \(domainID) AND number = \(number)
            """
        ).first
    }

    /// The domain's current revision of the file, nil before its first.
    public func currentFileRevision(_ stream: RevisionStream, domainID: Int64) async throws -> RevisionRecord? {
        try await fileRevisions(
            """
            SELECT \(unescaped: Self.fileColumns(withBytes: true)) FROM \(unescaped: stream.table)
            WHERE domain_id = \(domainID) ORDER BY number DESC LIMIT 1
            """
        ).first
    }

    /// Metadata only, newest first.
    public func listFileRevisions(_ stream: RevisionStream, domainID: Int64, before: Int?, limit: Int) async throws
        -> [RevisionRecord]
    {
        try await fileRevisions(
            """
            SELECT \(unescaped: Self.fileColumns(withBytes: false)) FROM \(unescaped: stream.table)
            WHERE domain_id = \(domainID) AND (\(before)::integer IS NULL OR number < \(before))
            ORDER BY number DESC LIMIT \(limit)
            """)
    }

    /// The newest revision of the file with these bytes, nil when none has them.
    public func fileRevisionNumber(_ stream: RevisionStream, domainID: Int64, sha256: String) async throws -> Int? {
        try await first(
            """
            SELECT number FROM \(unescaped: stream.table) WHERE domain_id = \(domainID) AND sha256 = \(sha256) \
            ORDER BY number DESC LIMIT 1
            """, as: Int.self)
    }

    public func insertFileRevision(_ stream: RevisionStream, _ r: RevisionRecord) async throws {
        try await write(
            """
            INSERT INTO \(unescaped: stream.table) (domain_id, number, bytes, sha256, actor_token, actor_name, \
            reason, rollback_of, promoted_from_host, promoted_from_revision, promoted_from_draft_sha256, \
            promoted_from_draft_base)
            VALUES (\(r.domainID), \(r.number), \(Data(r.bytes)), \(r.sha256), \(r.actorToken), \(r.actorName), \
            \(r.reason), \(r.rollbackOf), \(r.promotedFrom?.host), \(r.promotedFrom?.revision), \
            \(r.promotedFrom?.draftSHA256), \(r.promotedFrom?.draftBase))
            """)
    }

    // assetlinks.json's stream by its own names, as most readers ask for it.

    public func assetLinksRevision(domainID: Int64, number: Int) async throws -> RevisionRecord? {
        try await fileRevision(.assetLinks, domainID: domainID, number: number)
    }

    public func currentAssetLinksRevision(domainID: Int64) async throws -> RevisionRecord? {
        try await currentFileRevision(.assetLinks, domainID: domainID)
    }
}
