import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation
import Logging
import Metrics
import ServiceLifecycle

/// Delivers the outbox: every `interval`, on the one replica that takes the `webhooks` advisory
/// lock without waiting, it sends the pending deliveries of each webhook whose oldest one is due,
/// until none is. Webhooks are served side by side; one webhook's deliveries one at a time, in
/// event order (a failing one holds back the later ones, so a receiver never sees them out of
/// order).
///
/// An attempt that fails (no answer, or a status outside 2xx) is tried again after a backoff that
/// doubles from `retryBase` up to an hour; a delivery still failing `maxAge` after it was first
/// due is marked failed, and the next one goes. A crash between a receiver's 2xx and the record of
/// it sends that delivery again after restart: receivers deduplicate on `X-AASA-Delivery`.
package struct WebhookWorker: Service {
    package let database: Database
    package let fetcher: OutboundClient
    package let interval: Duration
    package let retryBase: Duration
    package let maxAge: Duration
    /// The most webhooks sent to at once by this replica (each through its own pinned client).
    package var concurrency = 4
    package let logger: Logger

    package init(
        database: Database, fetcher: OutboundClient, interval: Duration, retryBase: Duration, maxAge: Duration,
        concurrency: Int = 4, logger: Logger
    ) {
        self.database = database
        self.fetcher = fetcher
        self.interval = interval
        self.retryBase = retryBase
        self.maxAge = maxAge
        self.concurrency = concurrency
        self.logger = logger
    }

    package func run() async throws {
        try await PeriodicService("webhook delivery pass", every: interval, firstAfter: interval, logger: logger) {
            _ = try await runPass()
        }.run()
    }

    /// Sends everything due; the number of attempts made, or nil when another replica is at it.
    /// Each round takes up to 32 pending deliveries of each webhook whose oldest one is due: the
    /// webhooks go side by side, each one's deliveries one after another until one fails (the rest
    /// wait for the next round), and the round's outcomes are recorded in one transaction.
    package func runPass() async throws -> Int? {
        try await database.withConnection { connection in
            let session = DBSession(connection: connection, logger: logger)
            return try await session.holdingIfFree(.webhooks) {
                var attempts = 0
                while true {
                    let due = try await session.dueDeliveries(perWebhook: 32)
                    if due.isEmpty { return attempts }
                    var queues = Array(Dictionary(grouping: due, by: \.webhookID).values)[...]
                    // At most `concurrency` webhooks at a time: a publish that fans out to many
                    // must not open as many connections at once (issue 41).
                    // Each webhook's outcomes are recorded as soon as its queue is done (issue 50):
                    // a receiver that stalls to the deadline delays no other webhook's record.
                    attempts += try await withThrowingTaskGroup(of: [(DueDelivery, Fetched)].self) { group in
                        func start(_ queue: [DueDelivery]) {
                            group.addTask {
                                var sent: [(DueDelivery, Fetched)] = []
                                for delivery in queue.sorted(by: { $0.eventID < $1.eventID }) {
                                    let fetched = await send(delivery)
                                    sent.append((delivery, fetched))
                                    if !Self.delivered(fetched) { break }
                                }
                                return sent
                            }
                        }
                        for _ in 0..<max(1, concurrency) {
                            if let queue = queues.popFirst() { start(queue) }
                        }
                        var recorded = 0
                        while let sent = try await group.next() {
                            try await session.inTransaction {
                                for (delivery, fetched) in sent {
                                    try await record(delivery, fetched, session: session)
                                }
                            }
                            recorded += sent.count
                            if let queue = queues.popFirst() { start(queue) }
                        }
                        return recorded
                    }
                }
            }
        }
    }

    package static func delivered(_ fetched: Fetched) -> Bool {
        fetched.failure == nil && (200..<300).contains(fetched.status ?? 0)
    }

    package func send(_ delivery: DueDelivery) async -> Fetched {
        let body = WebhookPayload.body(delivery)
        let timestamp = Int(Date().timeIntervalSince1970)
        return await fetcher.post(
            delivery.url,
            headers: [
                ("Content-Type", "application/json"), ("User-Agent", "aasad-webhooks/1"),
                ("X-AASA-Event", delivery.event.name), ("X-AASA-Delivery", delivery.id.uuidString.lowercased()),
                ("X-AASA-Timestamp", String(timestamp)),
                ("X-AASA-Signature", WebhookSignature.sign(secret: delivery.secret, timestamp: timestamp, body: body)),
            ], body: body)
    }

    package func record(_ delivery: DueDelivery, _ fetched: Fetched, session: DBSession) async throws {
        let delivered = Self.delivered(fetched)
        let error: String? =
            delivered ? nil : fetched.failure.map { "\($0)" } ?? "the receiver answered \(fetched.status ?? 0)"
        var retryAt: Date?
        if !delivered {
            let base = Double(retryBase.components.seconds) + Double(retryBase.components.attoseconds) / 1e18
            let backoff = min(base * pow(2, Double(delivery.attempts)), 3600)
            let next = Date().addingTimeInterval(backoff)
            let deadline = delivery.createdAt.addingTimeInterval(Double(maxAge.components.seconds))
            retryAt = next < deadline ? next : nil
        }
        try await session.recordAttempt(
            delivery: delivery.id, delivered: delivered, status: fetched.status, error: error, retryAt: retryAt)
        let outcome = delivered ? "delivered" : retryAt == nil ? "failed" : "retry"
        Counter(label: "aasad_webhook_deliveries_total", dimensions: [("outcome", outcome)]).increment()
        if !delivered {
            logger.warning(
                "webhook delivery failed",
                metadata: [
                    "delivery": .string(delivery.id.uuidString.lowercased()), "event": .string(delivery.event.name),
                    "webhook": .string(delivery.webhookID.uuidString.lowercased()), "error": .string(error ?? ""),
                    "gives_up": .stringConvertible(retryAt == nil),
                ])
        }
    }
}

/// What a receiver gets: a Slack-compatible `text` sentence, and the structured event.
package enum WebhookPayload {
    package static func body(_ delivery: DueDelivery) -> [UInt8] {
        let e = delivery.event
        var event: JSONObject = [
            "id": .number(String(delivery.eventID)), "name": .string(e.name),
            "at": .string(ISO8601DateFormatter().string(from: delivery.eventAt)), "actor": .string(e.actor),
        ]
        if let domain = e.domain { event.append("domain", .string(domain)) }
        if let team = e.team { event.append("team", .string(team)) }
        event.append("data", e.data)
        let root: JSONValue = .object([
            "text": .string(e.text), "delivery": .string(delivery.id.uuidString.lowercased()),
            "event": .object(event),
        ])
        return Array(JSONWriter(style: .compact).string(root).utf8)
    }
}
