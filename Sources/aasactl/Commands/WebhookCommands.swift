import AASAAPI
import AASAModel
import ArgumentParser

/// `aasactl webhooks`: who is told when something happens (issue 22).
struct Webhooks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Webhooks: signed JSON posts (Slack-compatible `text`) when domains publish, roll back, fail, ...",
        discussion: """
            An admin's webhook receives every event it subscribes to; a team's, its own team's events and \
            those of domains where the team holds a grant. Each delivery carries X-AASA-Event, \
            X-AASA-Delivery (the same on every attempt), X-AASA-Timestamp and \
            X-AASA-Signature: sha256=HMAC-SHA256(secret, timestamp + "." + body).
            """,
        subcommands: [Add.self, List.self, Deliveries.self, Redeliver.self, Delete.self])

    static func rows(_ webhooks: [Components.Schemas.Webhook]) -> [String] {
        Table.rows(
            webhooks,
            [
                ("ID", { ContractAnswer.cell($0.id) }), ("TEAM", { ContractAnswer.cell($0.team) }),
                ("URL", { ContractAnswer.cell($0.url) }), ("EVENTS", { ContractAnswer.cell($0.events) }),
                ("ACTIVE", { ContractAnswer.cell($0.active) }),
            ])
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a webhook; its secret is printed once.")
        @OptionGroup var remote: RemoteOptions
        @Argument(help: "An https URL (not a private address).") var url: String
        @Option(name: .customLong("event"), help: "An event to deliver (repeat); none: every event.")
        var events: [String] = []
        @Option(help: "What the webhook is for.") var description: String?

        func run() async throws {
            var body: JSONObject = ["url": .string(url)]
            if !events.isEmpty { body.append("events", .array(events.map(JSONValue.string))) }
            if let description { body.append("description", .string(description)) }
            let response = try await remote.client.send(.post, APIClient.path("v1", "webhooks"), body: .object(body))
            try remote.show(response, as: Components.Schemas.WebhookCreated.self) { created in
                Webhooks.rows([created.webhook]) + ["secret (shown once): \(created.secret)"]
            }
        }
    }

    struct List: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        func run() async throws {
            try remote.show(
                try await remote.client.send(.get, APIClient.path("v1", "webhooks")),
                as: Components.Schemas.WebhookList.self
            ) { Webhooks.rows($0.items) }
        }
    }

    struct Deliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A webhook's deliveries, newest first.")
        @OptionGroup var remote: RemoteOptions
        @Argument var webhookID: String
        @Option var limit = 100

        func run() async throws {
            let response = try await remote.client.send(
                .get, APIClient.path("v1", "webhooks", webhookID, "deliveries"), query: [("limit", String(limit))])
            try remote.show(response, as: Components.Schemas.WebhookDeliveryList.self) { list in
                Table.rows(
                    list.items,
                    [
                        ("DELIVERY", { ContractAnswer.cell($0.id) }), ("EVENT", { ContractAnswer.cell($0.event) }),
                        ("STATUS", { $0.status.rawValue }),
                        ("ATTEMPTS", { ContractAnswer.cell($0.attempts) }),
                        ("LAST STATUS", { ContractAnswer.cell($0.lastStatus) }),
                        ("LAST ERROR", { ContractAnswer.cell($0.lastError) }),
                        ("NEXT ATTEMPT", { ContractAnswer.cell($0.nextAttemptAt) }),
                    ])
            }
        }
    }

    struct Redeliver: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send a delivery again, with the same ID.")
        @OptionGroup var remote: RemoteOptions
        @Argument var webhookID: String
        @Argument var deliveryID: String

        func run() async throws {
            let response = try await remote.client.send(
                .post, APIClient.path("v1", "webhooks", webhookID, "deliveries", deliveryID, "redeliver"))
            try remote.show(response, as: Components.Schemas.WebhookDelivery.self) {
                ["queued \(ContractAnswer.cell($0.id)) (\(ContractAnswer.cell($0.event)))"]
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var webhookID: String
        func run() async throws {
            let response = try await remote.client.send(.delete, APIClient.path("v1", "webhooks", webhookID))
            try remote.show(response) { _ in ["deleted \(webhookID)"] }
        }
    }
}
