import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation

extension APIImplementation {
    func webhooks(_ principal: Principal) -> WebhookService {
        WebhookService(
            work: work, principal: principal, actor: actor(principal), fetch: fetcher.config,
            maxPerTeam: maxWebhooksPerTeam)
    }

    func listWebhooks(_ input: Operations.ListWebhooks.Input) async throws -> Operations.ListWebhooks.Output {
        let list = try await webhooks(try principal()).list()
        return .ok(.init(body: .json(.init(items: list.map(Self.webhook)))))
    }

    func createWebhook(_ input: Operations.CreateWebhook.Input) async throws -> Operations.CreateWebhook.Output {
        let principal = try principal()
        let body =
            switch input.body {
            case .json(let body): body
            }
        let (saved, secret) = try await webhooks(principal).create(
            .init(url: body.url, events: body.events, description: body.description))
        return .created(.init(body: .json(.init(webhook: Self.webhook(saved), secret: secret))))
    }

    func getWebhook(_ input: Operations.GetWebhook.Input) async throws -> Operations.GetWebhook.Output {
        let id = try Names.uuid(input.path.webhookID, what: "webhook")
        let webhook = try await webhooks(try principal()).get(id)
        return .ok(.init(headers: .init(eTag: ETag.of(webhook.version)), body: .json(Self.webhook(webhook))))
    }

    func updateWebhook(_ input: Operations.UpdateWebhook.Input) async throws -> Operations.UpdateWebhook.Output {
        let principal = try principal()
        let id = try Names.uuid(input.path.webhookID, what: "webhook")
        let body =
            switch input.body {
            case .json(let body): body
            }
        let webhook = try await webhooks(principal).update(
            id,
            .init(
                url: body.url, events: body.events, description: body.description,
                active: body.active),
            ifMatch: input.headers.ifMatch)
        return .ok(.init(headers: .init(eTag: ETag.of(webhook.version)), body: .json(Self.webhook(webhook))))
    }

    func deleteWebhook(_ input: Operations.DeleteWebhook.Input) async throws -> Operations.DeleteWebhook.Output {
        let principal = try principal()
        try await webhooks(principal).delete(try Names.uuid(input.path.webhookID, what: "webhook"))
        return .noContent(.init())
    }

    func listWebhookDeliveries(
        _ input: Operations.ListWebhookDeliveries.Input
    ) async throws -> Operations.ListWebhookDeliveries.Output {
        let principal = try principal()
        let id = try Names.uuid(input.path.webhookID, what: "webhook")
        let limit = input.query.limit ?? 100
        guard (1...500).contains(limit) else {
            throw ServiceError.badRequest("limit is 1 to 500", field: "limit", rule: "range")
        }
        let list = try await webhooks(principal).deliveries(id, limit: limit)
        return .ok(.init(body: .json(.init(items: list.map(Self.delivery)))))
    }

    func redeliverWebhookDelivery(
        _ input: Operations.RedeliverWebhookDelivery.Input
    ) async throws -> Operations.RedeliverWebhookDelivery.Output {
        let principal = try principal()
        let delivery = try await webhooks(principal).redeliver(
            try Names.uuid(input.path.webhookID, what: "webhook"),
            delivery: try Names.uuid(input.path.deliveryID, what: "delivery"))
        return .accepted(.init(body: .json(Self.delivery(delivery))))
    }

    static func webhook(_ w: WebhookRecord) -> Components.Schemas.Webhook {
        .init(
            id: w.id.uuidString.lowercased(), team: w.teamName, url: w.url, events: w.events,
            description: w.description,
            active: w.active, createdAt: w.createdAt, version: w.version)
    }

    static func delivery(_ d: WebhookDeliveryRecord) -> Components.Schemas.WebhookDelivery {
        .init(
            id: d.id.uuidString.lowercased(), event: d.event, eventID: d.eventID,
            status: .init(rawValue: d.status) ?? .pending, attempts: d.attempts, nextAttemptAt: d.nextAttemptAt,
            lastStatus: d.lastStatus, lastError: d.lastError, createdAt: d.createdAt, deliveredAt: d.deliveredAt)
    }
}
