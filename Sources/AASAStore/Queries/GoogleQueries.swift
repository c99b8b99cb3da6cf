import Foundation
import PostgresNIO

/// What Google's Digital Asset Links API said of one package on one domain, as last recorded.
public struct GoogleStatusRecord: Sendable, Equatable {
    public var package: String
    public var state: String
    public var revision: Int
    public var since: Date
    public var checkedAt: Date
    public var detail: String?
    public var fingerprints: [String]
    /// Whether `google.stale` was told for the current episode (cleared when it converges).
    public var staleNotified: Bool

    public init(
        package: String, state: String, revision: Int, since: Date, checkedAt: Date, detail: String?,
        fingerprints: [String], staleNotified: Bool = false
    ) {
        self.package = package
        self.state = state
        self.revision = revision
        self.since = since
        self.checkedAt = checkedAt
        self.detail = detail
        self.fingerprints = fingerprints
        self.staleNotified = staleNotified
    }
}

public struct GoogleEventRecord: Sendable, Equatable {
    public var at: Date
    public var package: String
    public var state: String
    public var revision: Int
    public var detail: String?
}

extension DBSession {
    public func googleStatus(domainID: Int64) async throws -> [GoogleStatusRecord] {
        typealias Row = (String, String, Int, Date, Date, String?, [String], Bool)
        return try await all(
            """
            SELECT package, state, revision, since, checked_at, detail, fingerprints, stale_notified FROM \
            google_status WHERE domain_id = \(domainID) ORDER BY package
            """, as: Row.self
        ).map {
            GoogleStatusRecord(
                package: $0.0, state: $0.1, revision: $0.2, since: $0.3, checkedAt: $0.4, detail: $0.5,
                fingerprints: $0.6, staleNotified: $0.7)
        }
    }

    public func setGoogleStaleNotified(domainID: Int64, package: String, _ notified: Bool) async throws {
        try await run(
            """
            UPDATE google_status SET stale_notified = \(notified) WHERE domain_id = \(domainID) AND package = \
            \(package)
            """)
    }

    /// Records one package's check and returns the status it leaves: `since` moves (and a history
    /// event is added) only when the state or the revision changed.
    public func recordGoogleCheck(
        domainID: Int64, package: String, state: String, revision: Int, detail: String?, fingerprints: [String],
        before: GoogleStatusRecord?
    ) async throws -> GoogleStatusRecord {
        let changed = before == nil || before?.state != state || before?.revision != revision
        typealias Row = (Date, Date)
        let (since, checkedAt) =
            try await first(
                """
                INSERT INTO google_status (domain_id, package, state, revision, since, checked_at, detail, fingerprints)
                VALUES (\(domainID), \(package), \(state), \(revision), now(), now(), \(detail), \(fingerprints))
                ON CONFLICT (domain_id, package) DO UPDATE SET state = excluded.state, revision = excluded.revision,
                    since = CASE WHEN \(changed) THEN now() ELSE google_status.since END, checked_at = now(),
                    detail = excluded.detail, fingerprints = excluded.fingerprints
                RETURNING since, checked_at
                """, as: Row.self) ?? (Date(), Date())  // an upsert always returns its row
        if changed {
            try await run(
                """
                INSERT INTO google_events (domain_id, package, state, revision, detail) VALUES (\(domainID), \
                \(package), \(state), \(revision), \(detail))
                """)
        }
        return GoogleStatusRecord(
            package: package, state: state, revision: revision, since: since, checkedAt: checkedAt, detail: detail,
            fingerprints: fingerprints, staleNotified: before?.staleNotified ?? false)
    }

    /// Forgets the packages the domain's current assetlinks.json no longer lists.
    public func dropGoogleStatus(domainID: Int64, keeping packages: [String]) async throws {
        try await run(
            """
            DELETE FROM google_status WHERE domain_id = \(domainID) AND NOT (package = ANY(\(packages)))
            """)
    }

    public func googleEvents(domainID: Int64, limit: Int) async throws -> [GoogleEventRecord] {
        typealias Row = (Date, String, String, Int, String?)
        return try await all(
            """
            SELECT at, package, state, revision, detail FROM google_events WHERE domain_id = \(domainID) \
            ORDER BY id DESC LIMIT \(limit)
            """, as: Row.self
        ).map { GoogleEventRecord(at: $0.0, package: $0.1, state: $0.2, revision: $0.3, detail: $0.4) }
    }

    /// The domains with an assetlinks.json whose Google view is due: never checked, checked before
    /// `cutoff`, checked against an older revision than the current one (a publish since), or left
    /// in `error` (the monitor backs each of those off itself). Least recently checked first: a
    /// domain that just failed comes after every other (issue 50).
    public func domainsDueForGoogleCheck(checkedBefore cutoff: Date) async throws -> [Int64] {
        try await all(
            """
            SELECT d.id FROM domains d
            JOIN assetlinks_revisions r ON r.domain_id = d.id
                AND r.number = (SELECT max(number) FROM assetlinks_revisions WHERE domain_id = d.id)
            LEFT JOIN LATERAL (SELECT min(checked_at) AS checked_at, min(revision) AS revision, \
            bool_or(state = 'error') AS errored FROM google_status g WHERE g.domain_id = d.id) s ON true
            WHERE s.checked_at IS NULL OR s.checked_at < \(cutoff) OR s.revision < r.number OR s.errored
            ORDER BY s.checked_at NULLS FIRST, d.host
            """, as: Int64.self)
    }
}
