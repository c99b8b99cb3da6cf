import Foundation
import PostgresNIO

/// What Apple's CDN served for a domain when last checked.
public struct CDNStatusRecord: Sendable, Equatable {
    public var state: String
    public var revision: Int?
    public var sha256: String?
    public var since: Date
    public var checkedAt: Date
    public var httpStatus: Int?
    public var detail: String?
    /// Whether `cdn.stale` was told for the current episode (cleared when it converges).
    public var staleNotified: Bool

    public init(
        state: String, revision: Int?, sha256: String?, since: Date, checkedAt: Date, httpStatus: Int?, detail: String?,
        staleNotified: Bool = false
    ) {
        self.state = state
        self.revision = revision
        self.sha256 = sha256
        self.since = since
        self.checkedAt = checkedAt
        self.httpStatus = httpStatus
        self.detail = detail
        self.staleNotified = staleNotified
    }
}

public struct CDNEventRecord: Sendable, Equatable {
    public var at: Date
    public var state: String
    public var revision: Int?
    public var detail: String?
}

extension DBSession {
    public func cdnStatus(domainID: Int64) async throws -> CDNStatusRecord? {
        typealias Row = (String, Int?, String?, Date, Date, Int?, String?, Bool)
        return try await first(
            """
            SELECT state, revision, sha256, since, checked_at, http_status, detail, stale_notified FROM cdn_status \
            WHERE domain_id = \(domainID)
            """, as: Row.self
        ).map {
            CDNStatusRecord(
                state: $0.0, revision: $0.1, sha256: $0.2, since: $0.3, checkedAt: $0.4, httpStatus: $0.5, detail: $0.6,
                staleNotified: $0.7)
        }
    }

    public func setCDNStaleNotified(domainID: Int64, _ notified: Bool) async throws {
        try await run("UPDATE cdn_status SET stale_notified = \(notified) WHERE domain_id = \(domainID)")
    }

    /// Records a check and returns the status before it (nil: never checked) and the one it leaves:
    /// `since` moves (and a history event is added) only when the state or the revision changed.
    public func recordCDNCheck(
        domainID: Int64, state: String, revision: Int?, sha256: String?, httpStatus: Int?,
        detail: String?
    ) async throws -> (before: CDNStatusRecord?, after: CDNStatusRecord) {
        let before = try await cdnStatus(domainID: domainID)
        let changed =
            before == nil || before?.state != state || before?.revision != revision || before?.sha256 != sha256
        typealias Row = (Date, Date)
        let (since, checkedAt) =
            try await first(
                """
                INSERT INTO cdn_status (domain_id, state, revision, sha256, since, checked_at, http_status, detail)
                VALUES (\(domainID), \(state), \(revision), \(sha256), now(), now(), \(httpStatus), \(detail))
                ON CONFLICT (domain_id) DO UPDATE SET state = excluded.state, revision = excluded.revision, sha256 = \
                excluded.sha256,
                    since = CASE WHEN \(changed) THEN now() ELSE cdn_status.since END, checked_at = now(),
                    http_status = excluded.http_status, detail = excluded.detail
                RETURNING since, checked_at
                """, as: Row.self) ?? (Date(), Date())  // an upsert always returns its row
        if changed {
            try await run(
                """
                INSERT INTO cdn_events (domain_id, state, revision, detail) VALUES (\(domainID), \(state), \
                \(revision), \(detail))
                """
            )
        }
        let after = CDNStatusRecord(
            state: state, revision: revision, sha256: sha256, since: since, checkedAt: checkedAt,
            httpStatus: httpStatus, detail: detail, staleNotified: before?.staleNotified ?? false)
        return (before, after)
    }

    public func cdnEvents(domainID: Int64, limit: Int) async throws -> [CDNEventRecord] {
        typealias Row = (Date, String, Int?, String?)
        return try await all(
            """
            SELECT at, state, revision, detail FROM cdn_events WHERE domain_id = \(domainID) ORDER BY id DESC LIMIT \
            \(limit)
            """, as: Row.self
        ).map { CDNEventRecord(at: $0.0, state: $0.1, revision: $0.2, detail: $0.3) }
    }

    /// The domains not checked since `cutoff` (never checked first), by host.
    public func domainsDueForCDNCheck(checkedBefore cutoff: Date) async throws -> [Int64] {
        try await all(
            """
            SELECT d.id FROM domains d LEFT JOIN cdn_status s ON s.domain_id = d.id
            WHERE s.checked_at IS NULL OR s.checked_at < \(cutoff) ORDER BY s.checked_at NULLS FIRST, d.host
            """, as: Int64.self)
    }
}
