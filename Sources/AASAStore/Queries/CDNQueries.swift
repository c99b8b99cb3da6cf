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

    public init(
        state: String, revision: Int?, sha256: String?, since: Date, checkedAt: Date, httpStatus: Int?, detail: String?
    ) {
        self.state = state
        self.revision = revision
        self.sha256 = sha256
        self.since = since
        self.checkedAt = checkedAt
        self.httpStatus = httpStatus
        self.detail = detail
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
        typealias Row = (String, Int?, String?, Date, Date, Int?, String?)
        return try await first(
            """
            SELECT state, revision, sha256, since, checked_at, http_status, detail FROM cdn_status WHERE domain_id = \
            \(domainID)
            """, as: Row.self
        ).map {
            CDNStatusRecord(
                state: $0.0, revision: $0.1, sha256: $0.2, since: $0.3, checkedAt: $0.4, httpStatus: $0.5, detail: $0.6)
        }
    }

    /// Whether `cdn.stale` was told for the domain's current episode.
    public func cdnStaleNotified(domainID: Int64) async throws -> Bool {
        try await first("SELECT stale_notified FROM cdn_status WHERE domain_id = \(domainID)", as: Bool.self) ?? false
    }

    public func setCDNStaleNotified(domainID: Int64, _ notified: Bool) async throws {
        try await run("UPDATE cdn_status SET stale_notified = \(notified) WHERE domain_id = \(domainID)")
    }

    /// Records a check and returns the status it leaves: `since` moves (and a history event is
    /// added) only when the state or the revision changed.
    public func recordCDNCheck(
        domainID: Int64, state: String, revision: Int?, sha256: String?, httpStatus: Int?,
        detail: String?
    ) async throws -> CDNStatusRecord {
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
        return CDNStatusRecord(
            state: state, revision: revision, sha256: sha256, since: since, checkedAt: checkedAt,
            httpStatus: httpStatus, detail: detail)
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
