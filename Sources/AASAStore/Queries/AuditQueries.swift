import AASAModel
import Foundation
import PostgresNIO

public struct AuditFilter: Sendable {
    public var team: String?
    public var domain: String?
    public var appID: String?
    public var actor: UUID?
    public var action: String?
    public var since: Date?
    public var until: Date?
    /// Events with an ID below this one (the cursor of the previous page).
    public var before: Int64?
    public var limit: Int

    public init(
        team: String? = nil, domain: String? = nil, appID: String? = nil, actor: UUID? = nil, action: String? = nil,
        since: Date? = nil, until: Date? = nil, before: Int64? = nil, limit: Int = 100
    ) {
        self.team = team
        self.domain = domain
        self.appID = appID
        self.actor = actor
        self.action = action
        self.since = since
        self.until = until
        self.before = before
        self.limit = limit
    }
}

extension DBSession {
    /// Appends one event; called inside the transaction of the change it records. An action that
    /// people outside are told of (`WebhookEvent`) writes its webhook event and deliveries in the
    /// same transaction: the outbox.
    public func appendAudit(_ event: AuditEventRecord) async throws {
        try await run(
            """
            INSERT INTO audit_events (actor_token, actor_name, actor_team, team, domain, app_id, action, entity_type,
                                      entity_id, before, after, request_id)
            VALUES (\(event.actorToken), \(event.actorName), \(event.actorTeam), \(event.team), \(event.domain),
                    \(event.appID), \(event.action), \(event.entityType), \(event.entityID),
                    \(event.before.map(JSONColumn.encode))::text::jsonb, \
            \(event.after.map(JSONColumn.encode))::text::jsonb,
                    \(event.requestID))
            """)
        if let raised = WebhookEvent(
            auditAction: event.action, domain: event.domain, team: event.team, actor: event.actorName,
            entityID: event.entityID, after: event.after)
        {
            try await emitWebhookEvent(raised)
        }
    }

    /// Newest first, `filter.limit` at most.
    public func listAudit(_ filter: AuditFilter) async throws -> [AuditEventRecord] {
        typealias Row = (
            Int64, Date, UUID?, String, String?, String?, String?, String?, String, String, String, String?, String?,
            String?
        )
        let rows = try await all(
            """
            SELECT id, at, actor_token, actor_name, actor_team, team, domain, app_id, action, entity_type, entity_id,
                   before::text, after::text, request_id
            FROM audit_events
            WHERE (\(filter.team)::text IS NULL OR team = \(filter.team))
              AND (\(filter.domain)::text IS NULL OR domain = \(filter.domain))
              AND (\(filter.appID)::text IS NULL OR app_id = \(filter.appID))
              AND (\(filter.actor)::uuid IS NULL OR actor_token = \(filter.actor))
              AND (\(filter.action)::text IS NULL OR action = \(filter.action))
              AND (\(filter.since)::timestamptz IS NULL OR at >= \(filter.since))
              AND (\(filter.until)::timestamptz IS NULL OR at < \(filter.until))
              AND (\(filter.before)::bigint IS NULL OR id < \(filter.before))
            ORDER BY id DESC LIMIT \(filter.limit)
            """, as: Row.self)
        return rows.map { row in
            var event = AuditEventRecord(
                actorToken: row.2, actorName: row.3, actorTeam: row.4, team: row.5,
                domain: row.6, appID: row.7, action: row.8, entityType: row.9,
                entityID: row.10, before: JSONColumn.decode(row.11),
                after: JSONColumn.decode(row.12), requestID: row.13)
            event.id = row.0
            event.at = row.1
            return event
        }
    }
}

extension DBSession {
    /// The `policy.override` events on a domain after `since` (all of them when nil), oldest first:
    /// what the next revision lists as forced past the policies.
    public func overrides(domain host: String, since: Date?) async throws -> [JSONValue] {
        typealias Row = (Date, String, String?)
        return try await all(
            """
            SELECT at, actor_name, after::text FROM audit_events
            WHERE domain = \(host) AND action = 'policy.override' AND (\(since)::timestamptz IS NULL OR at > \(since))
            ORDER BY id
            """, as: Row.self
        ).map { row in
            var item: JSONObject = ["at": .string(ISO8601DateFormatter().string(from: row.0)), "actor": .string(row.1)]
            for member in JSONColumn.decode(row.2)?.objectValue ?? [:] where member.key != "violations" {
                item.append(member.key, member.value)
            }
            return .object(item)
        }
    }
}
