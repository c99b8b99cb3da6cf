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
/// until none is. Webhooks are served side by side, each queue moving on its own; one webhook's
/// deliveries one at a time, in event order (a failing one holds back the later ones, so a
/// receiver never sees them out of order).
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
    /// Each webhook's queue moves on its own: it takes up to 32 of that webhook's due deliveries,
    /// sends them one after another until one fails, records them, and the webhook's next due ones
    /// go back in line at once. A slow receiver holds up only its own queue: before, a round took
    /// 32 per webhook and the next round began only when every queue was done, so a receiver
    /// answering in 3 s with 10 waiting delayed every other team's next delivery by its whole round.
    package func runPass() async throws -> Int? {
        try await database.withConnection { connection in
            let session = DBSession(connection: connection, logger: logger)
            return try await session.holdingIfFree(.webhooks) {
                // At most `concurrency` webhooks at a time: a publish that fans out to many must
                // not open as many connections at once. Each webhook's outcomes are recorded as soon
                // as its queue is done: a receiver that stalls to the deadline delays no other
                // webhook's record.
                // A nil webhook is a tick: while a slow queue runs, a free slot looks for new due
                // deliveries every second rather than when that queue is done.
                try await withThrowingTaskGroup(of: (UUID?, [(DueDelivery, Fetched)]).self) { group in
                    var sending = Set<UUID>()
                    var waiting: [[DueDelivery]] = []
                    var ticking = false
                    func start(_ queue: [DueDelivery]) {
                        let webhook = queue[0].webhookID
                        sending.insert(webhook)
                        group.addTask {
                            var sent: [(DueDelivery, Fetched)] = []
                            for delivery in queue.sorted(by: { $0.eventID < $1.eventID }) {
                                let fetched = await send(delivery)
                                sent.append((delivery, fetched))
                                if !Self.delivered(fetched) { break }
                            }
                            return (webhook, sent)
                        }
                    }
                    /// Queues the due deliveries of every webhook neither sending nor in line, and
                    /// starts what the concurrency allows.
                    func fill() async throws {
                        let queued = Set(waiting.map { $0[0].webhookID })
                        let due = try await session.dueDeliveries(perWebhook: 32)
                        let byOldest = Dictionary(grouping: due, by: \.webhookID).sorted {
                            ($0.value.map(\.eventID).min() ?? 0) < ($1.value.map(\.eventID).min() ?? 0)
                        }
                        for (webhook, queue) in byOldest where !sending.contains(webhook) && !queued.contains(webhook) {
                            waiting.append(queue)
                        }
                        while sending.count < max(1, concurrency), !waiting.isEmpty { start(waiting.removeFirst()) }
                        if !sending.isEmpty, sending.count < max(1, concurrency), !ticking {
                            ticking = true
                            group.addTask {
                                try await Task.sleep(for: min(interval, .seconds(1)))
                                return (nil, [])
                            }
                        }
                    }
                    try await fill()
                    var attempts = 0
                    while let (webhook, sent) = try await group.next() {
                        if let webhook {
                            sending.remove(webhook)
                            try await session.inTransaction {
                                for (delivery, fetched) in sent {
                                    try await record(delivery, fetched, session: session)
                                }
                            }
                            attempts += sent.count
                        } else {
                            ticking = false
                        }
                        try await fill()
                    }
                    return attempts
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
