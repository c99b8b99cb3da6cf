import AASAModel
import Foundation
import PostgresNIO

extension DBSession {
    private typealias WebhookRow = (UUID, Int64?, String?, String, [String], String, Bool, Date, Int64)
    private func webhooks(_ query: PostgresQuery) async throws -> [WebhookRecord] {
        try await all(query, as: WebhookRow.self).map {
            WebhookRecord(
                id: $0.0, teamID: $0.1, teamName: $0.2, url: $0.3, events: $0.4, description: $0.5, active: $0.6,
                createdAt: $0.7, version: $0.8)
        }
    }

    public func insertWebhook(
        id: UUID, teamID: Int64?, url: String, secret: String, events: [String], description: String
    ) async throws -> WebhookRecord? {
        try await run(
            """
            INSERT INTO webhooks (id, team_id, url, secret, events, description)
            VALUES (\(id), \(teamID), \(url), \(secret), \(events), \(description))
            """)
        return try await webhook(id: id)
    }

    /// How many webhooks one owner keeps: a team, or the admins (nil).
    public func countWebhooks(ownedBy teamID: Int64?) async throws -> Int {
        try await first(
            "SELECT count(*)::bigint FROM webhooks WHERE team_id IS NOT DISTINCT FROM \(teamID)", as: Int.self)
            ?? 0
    }

    /// Every webhook (nil) or one team's, oldest first.
    public func listWebhooks(teamID: Int64?) async throws -> [WebhookRecord] {
        try await webhooks(
            """
            SELECT w.id, w.team_id, t.name, w.url, w.events, w.description, w.active, w.created_at, w.version
            FROM webhooks w LEFT JOIN teams t ON t.id = w.team_id
            WHERE \(teamID)::bigint IS NULL OR w.team_id = \(teamID)
            ORDER BY w.created_at, w.id
            """)
    }

    public func webhook(id: UUID, forUpdate: Bool = false) async throws -> WebhookRecord? {
        try await webhooks(
            """
            SELECT w.id, w.team_id, t.name, w.url, w.events, w.description, w.active, w.created_at, w.version
            FROM webhooks w LEFT JOIN teams t ON t.id = w.team_id WHERE w.id = \(id)
            \(unescaped: forUpdate ? "FOR UPDATE OF w" : "")
            """
        ).first
    }

    public func updateWebhook(_ webhook: WebhookRecord) async throws {
        try await run(
            """
            UPDATE webhooks SET url = \(webhook.url), events = \(webhook.events), description = \(webhook.description),
                   active = \(webhook.active), version = version + 1, updated_at = now()
            WHERE id = \(webhook.id)
            """)
    }

    public func deleteWebhook(id: UUID) async throws {
        try await run("DELETE FROM webhooks WHERE id = \(id)")
    }

    /// Writes `event` and, in the same statement, one pending delivery per webhook that may see
    /// it: an admin's always, a team's for its own team's events and those of domains where it
    /// holds a grant; each only when its filter is empty or names the event. Called inside the
    /// transaction of the change the event records, so a change never commits without them.
    public func emitWebhookEvent(_ event: WebhookEvent) async throws {
        try await run(
            """
            WITH e AS (
                INSERT INTO webhook_events (name, domain, team, actor, text, data)
                VALUES (\(event.name), \(event.domain), \(event.team), \(event.actor), \(event.text), \
            \(JSONColumn.encode(event.data))::text::jsonb)
                RETURNING id
            )
            INSERT INTO webhook_deliveries (id, webhook_id, event_id)
            SELECT gen_random_uuid(), w.id, e.id FROM webhooks w, e
            WHERE w.active
              AND (cardinality(w.events) = 0 OR \(event.name) = ANY (w.events))
              AND (w.team_id IS NULL
                   OR w.team_id = (SELECT id FROM teams WHERE name = \(event.team))
                   OR EXISTS (SELECT 1 FROM grants g JOIN domain_hosts h ON h.domain_id = g.domain_id
                              WHERE h.host = \(event.domain) AND g.team_id = w.team_id))
            """)
    }

    private typealias DeliveryRow = (UUID, UUID, Int64, String, String, Int, Date, Int?, String?, Date, Date?)

    /// A webhook's deliveries, newest first.
    public func deliveries(webhookID: UUID, limit: Int) async throws -> [WebhookDeliveryRecord] {
        try await all(
            """
            SELECT d.id, d.webhook_id, d.event_id, e.name, d.status, d.attempts, d.next_attempt_at, d.last_status,
                   d.last_error, d.created_at, d.delivered_at
            FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
            WHERE d.webhook_id = \(webhookID) ORDER BY d.event_id DESC LIMIT \(limit)
            """, as: DeliveryRow.self
        ).map(Self.delivery)
    }

    public func delivery(id: UUID) async throws -> WebhookDeliveryRecord? {
        try await all(
            """
            SELECT d.id, d.webhook_id, d.event_id, e.name, d.status, d.attempts, d.next_attempt_at, d.last_status,
                   d.last_error, d.created_at, d.delivered_at
            FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE d.id = \(id)
            """, as: DeliveryRow.self
        ).first.map(Self.delivery)
    }

    private static func delivery(_ r: DeliveryRow) -> WebhookDeliveryRecord {
        WebhookDeliveryRecord(
            id: r.0, webhookID: r.1, eventID: r.2, event: r.3, status: r.4, attempts: r.5, nextAttemptAt: r.6,
            lastStatus: r.7, lastError: r.8, createdAt: r.9, deliveredAt: r.10)
    }

    /// What the worker sends now: for each active webhook whose oldest pending delivery is due, up
    /// to `perWebhook` of its pending deliveries in event order (the later ones are sent only after
    /// the earlier ones: per-webhook order).
    public func dueDeliveries(perWebhook: Int) async throws -> [DueDelivery] {
        typealias Row = (
            UUID, UUID, String, String, Int, Date, Int64, String, String?, String?, String, String, String, Date
        )
        return try await all(
            """
            SELECT d.id, d.webhook_id, w.url, w.secret, d.attempts, d.created_at, e.id, e.name, e.domain, e.team,
                   e.actor, e.text, e.data::text, e.created_at
            FROM (SELECT DISTINCT ON (webhook_id) webhook_id, next_attempt_at FROM webhook_deliveries
                  WHERE status = 'pending' ORDER BY webhook_id, event_id) head
            JOIN webhooks w ON w.id = head.webhook_id AND w.active
            CROSS JOIN LATERAL (SELECT * FROM webhook_deliveries p
                                WHERE p.webhook_id = head.webhook_id AND p.status = 'pending'
                                ORDER BY p.event_id LIMIT \(perWebhook)) d
            JOIN webhook_events e ON e.id = d.event_id
            WHERE head.next_attempt_at <= now()
            ORDER BY d.webhook_id, d.event_id LIMIT 1000
            """, as: Row.self
        ).map { r in
            DueDelivery(
                id: r.0, webhookID: r.1, url: r.2, secret: r.3, attempts: r.4, createdAt: r.5, eventID: r.6,
                event: WebhookEvent(
                    name: r.7, domain: r.8, team: r.9, actor: r.10, text: r.11, data: JSONColumn.decode(r.12)),
                eventAt: r.13)
        }
    }

    /// One attempt's outcome: delivered, or pending again at `retryAt`, or failed for good (nil
    /// `retryAt` and not delivered).
    public func recordAttempt(
        delivery id: UUID, delivered: Bool, status: Int?, error: String?, retryAt: Date?
    ) async throws {
        let next = delivered ? "delivered" : retryAt == nil ? "failed" : "pending"
        try await run(
            """
            UPDATE webhook_deliveries SET attempts = attempts + 1, status = \(next), last_status = \(status),
                   last_error = \(error), next_attempt_at = coalesce(\(retryAt), next_attempt_at),
                   delivered_at = CASE WHEN \(delivered) THEN now() END
            WHERE id = \(id)
            """)
    }

    /// Sends a delivery again, with the same ID: pending and due now.
    public func redeliver(id: UUID) async throws {
        try await run(
            """
            UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), created_at = now()
            WHERE id = \(id)
            """)
    }
}
