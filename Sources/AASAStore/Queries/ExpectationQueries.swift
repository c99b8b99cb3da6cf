import Foundation
import PostgresNIO

extension DBSession {
    private static let expectationColumns = """
        e.id, e.domain_id, e.team_id, t.name, e.url, e.kind, e.app_id, e.source, e.description, e.version,
        e.holds_in_draft, e.holds_when_published, e.draft_app, e.published_app, e.admin_pinned,
        e.created_at, e.updated_at
        """
    private typealias ExpectationRow = (
        UUID, Int64, Int64, String, String, String, String?, String, String?, Int64,
        Bool, Bool, String?, String?, Bool, Date, Date
    )

    private func expectations(_ query: PostgresQuery) async throws -> [ExpectationRecord] {
        try await all(query, as: ExpectationRow.self).map {
            ExpectationRecord(
                id: $0.0, domainID: $0.1, teamID: $0.2, teamName: $0.3, url: $0.4, kind: $0.5, appID: $0.6,
                source: $0.7, description: $0.8, version: $0.9, holdsInDraft: $0.10, holdsWhenPublished: $0.11,
                draftApp: $0.12, publishedApp: $0.13, adminPinned: $0.14, createdAt: $0.15, updatedAt: $0.16)
        }
    }

    /// The version of the domain's expectations as a whole (see `DomainRecord.expectationsVersion`).
    public func expectationsVersion(domainID: Int64) async throws -> Int64 {
        try await first("SELECT expectations_version FROM domains WHERE id = \(domainID)", as: Int64.self) ?? 0
    }

    /// Every expectation on the domain, oldest first.
    public func listExpectations(domainID: Int64) async throws -> [ExpectationRecord] {
        try await expectations(
            """
            SELECT \(unescaped: Self.expectationColumns) FROM expectations e JOIN teams t ON t.id = e.team_id
            WHERE e.domain_id = \(domainID) ORDER BY e.created_at, e.id
            """)
    }

    public func expectation(id: UUID, domainID: Int64, forUpdate: Bool = false) async throws -> ExpectationRecord? {
        try await expectations(
            """
            SELECT \(unescaped: Self.expectationColumns) FROM expectations e JOIN teams t ON t.id = e.team_id
            WHERE e.id = \(id) AND e.domain_id = \(domainID) \(unescaped: forUpdate ? "FOR UPDATE OF e" : "")
            """
        ).first
    }

    /// Inserts a new expectation or, when `id` exists, replaces its fields and bumps its version.
    /// A second expectation with the same team, URL, kind and app is a unique violation.
    public func saveExpectation(_ e: ExpectationRecord) async throws {
        try await write(
            """
            INSERT INTO expectations (id, domain_id, team_id, url, kind, app_id, source, description,
                                      holds_in_draft, holds_when_published, draft_app, published_app, admin_pinned)
            VALUES (\(e.id), \(e.domainID), \(e.teamID), \(e.url), \(e.kind), \(e.appID), \(e.source), \(e.description),
                    \(e.holdsInDraft), \(e.holdsWhenPublished), \(e.draftApp), \(e.publishedApp), \(e.adminPinned))
            ON CONFLICT (id) DO UPDATE SET url = excluded.url, kind = excluded.kind, app_id = excluded.app_id,
                source = excluded.source, description = excluded.description, holds_in_draft = excluded.holds_in_draft,
                holds_when_published = excluded.holds_when_published, draft_app = excluded.draft_app,
                published_app = excluded.published_app, admin_pinned = excluded.admin_pinned, version = \
            expectations.version + 1, updated_at = now()
            """)
    }

    public func deleteExpectation(id: UUID) async throws {
        try await write("DELETE FROM expectations WHERE id = \(id)")
    }

    /// Stores what an evaluation found, in one statement; only rows that differ are written.
    public func updateOutcomes(_ outcomes: [ExpectationOutcome], published: Bool) async throws {
        guard !outcomes.isEmpty else { return }
        let ids = outcomes.map(\.id)
        let holds = outcomes.map(\.holds)
        let apps = outcomes.map { $0.app ?? "" }
        if published {
            try await write(
                """
                UPDATE expectations e SET holds_when_published = u.holds, published_app = nullif(u.app, '')
                FROM unnest(\(ids)::uuid[], \(holds)::boolean[], \(apps)::text[]) AS u(id, holds, app) WHERE e.id = u.id
                """)
        } else {
            try await write(
                """
                UPDATE expectations e SET holds_in_draft = u.holds, draft_app = nullif(u.app, '')
                FROM unnest(\(ids)::uuid[], \(holds)::boolean[], \(apps)::text[]) AS u(id, holds, app) WHERE e.id = u.id
                """)
        }
    }
}
