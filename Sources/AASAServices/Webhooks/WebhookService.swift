import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// Webhooks as the API and `aasactl webhooks` manage them. An admin's webhook sees every event; a
/// team's (created with a `write` token) sees its own team's and those of domains where it holds a
/// grant, which `DBSession.emitWebhookEvent` decides when each event is written. The URL check is
/// the probe's: https, and no private address unless the operator's resolution overrides name the
/// host (`AASA_PROBE_RESOLVE`, which the tests use for their receiver).
package struct WebhookService: Sendable {
    package let work: RequestWork
    package let principal: Principal
    package let actor: Actor
    package let fetch: FetchConfig
    /// The most webhooks one team keeps (the admins' together count as one team): every publish
    /// posts to each of them (issue 41: a team made 300, and one publish sent 300 POSTs).
    package var maxPerTeam = 20

    package init(work: RequestWork, principal: Principal, actor: Actor, fetch: FetchConfig, maxPerTeam: Int = 20) {
        self.work = work
        self.principal = principal
        self.actor = actor
        self.fetch = fetch
        self.maxPerTeam = maxPerTeam
    }

    package struct Input: Sendable {
        package var url: String?
        package var events: [String]?
        package var description: String?
        package var active: Bool?

        package init(url: String? = nil, events: [String]? = nil, description: String? = nil, active: Bool? = nil) {
            self.url = url
            self.events = events
            self.description = description
            self.active = active
        }
    }

    package func create(_ input: Input) async throws -> (WebhookRecord, secret: String) {
        guard principal.canWrite else { throw ServiceError.forbidden("a read token cannot create webhooks") }
        // The cheap checks first: the URL's may ask DNS.
        let events = try Self.checkedEvents(input.events ?? [])
        let description = try Self.checkedDescription(input.description ?? "")
        let url = try await checkedURL(input.url ?? "")
        let secret = WebhookSignature.newSecret()
        let owner = principal.isAdmin ? nil : principal.teamID
        let saved = try await work.transaction { session in
            // Two creates at once must not both see room for one more.
            try await session.lockUntilCommit(.webhookOwner(teamID: owner))
            let kept = try await session.countWebhooks(ownedBy: owner)
            if kept >= maxPerTeam {
                throw ServiceError.invalid(
                    field: "/url", rule: "max-webhooks",
                    "\(owner == nil ? "the admins keep" : "team \(principal.teamName ?? "?") keeps") \(kept) webhooks, "
                        + "the most allowed (AASA_MAX_WEBHOOKS_PER_TEAM); delete one first")
            }
            guard
                let saved = try await session.insertWebhook(
                    id: UUID(), teamID: principal.isAdmin ? nil : principal.teamID, url: url, secret: secret,
                    events: events, description: description)
            else { throw ServiceError.notFound("the webhook was deleted") }
            try await session.appendAudit(audit("webhook.create", saved, before: nil, after: saved))
            return saved
        }
        return (saved, secret)
    }

    package func list() async throws -> [WebhookRecord] {
        try await work.transaction { session in
            try await session.listWebhooks(teamID: principal.isAdmin ? nil : (principal.teamID ?? -1))
        }
    }

    package func get(_ id: UUID) async throws -> WebhookRecord {
        try await work.transaction { try await visible(id, session: $0) }
    }

    package func update(_ id: UUID, _ input: Input, ifMatch: String?) async throws -> WebhookRecord {
        guard principal.canWrite else { throw ServiceError.forbidden("a read token cannot change webhooks") }
        let events = try input.events.map(Self.checkedEvents)
        let description = try input.description.map(Self.checkedDescription)
        var url: String?
        if let given = input.url { url = try await checkedURL(given) }
        return try await work.transaction { session in
            let before = try await visible(id, session: session, forUpdate: true)
            try ETag.check(ifMatch, version: before.version)
            var after = before
            if let url { after.url = url }
            if let events { after.events = events }
            if let description { after.description = description }
            if let active = input.active { after.active = active }
            guard after != before else { return before }
            try await session.updateWebhook(after)
            guard let saved = try await session.webhook(id: id) else { throw ServiceError.notFound("no webhook") }
            try await session.appendAudit(audit("webhook.update", saved, before: before, after: saved))
            return saved
        }
    }

    package func delete(_ id: UUID) async throws {
        guard principal.canWrite else { throw ServiceError.forbidden("a read token cannot delete webhooks") }
        try await work.transaction { session in
            let before = try await visible(id, session: session, forUpdate: true)
            try await session.deleteWebhook(id: id)
            try await session.appendAudit(audit("webhook.delete", before, before: before, after: nil))
        }
    }

    package func deliveries(_ id: UUID, limit: Int) async throws -> [WebhookDeliveryRecord] {
        try await work.transaction { session in
            _ = try await visible(id, session: session)
            return try await session.deliveries(webhookID: id, limit: limit)
        }
    }

    package func redeliver(_ id: UUID, delivery deliveryID: UUID) async throws -> WebhookDeliveryRecord {
        guard principal.canWrite else { throw ServiceError.forbidden("a read token cannot redeliver") }
        return try await work.transaction { session in
            _ = try await visible(id, session: session, forUpdate: true)
            guard let delivery = try await session.delivery(id: deliveryID), delivery.webhookID == id else {
                throw ServiceError.notFound("no delivery \(deliveryID.uuidString.lowercased()) of this webhook")
            }
            try await session.redeliver(id: deliveryID)
            return try await session.delivery(id: deliveryID) ?? delivery
        }
    }

    /// The webhook, if the principal may see it (an admin any, a team its own); 404 otherwise.
    private func visible(_ id: UUID, session: DBSession, forUpdate: Bool = false) async throws -> WebhookRecord {
        guard let webhook = try await session.webhook(id: id, forUpdate: forUpdate),
            principal.isAdmin || (webhook.teamID != nil && webhook.teamID == principal.teamID)
        else { throw ServiceError.notFound("no webhook \(id.uuidString.lowercased())") }
        return webhook
    }

    private func audit(_ action: String, _ webhook: WebhookRecord, before: WebhookRecord?, after: WebhookRecord?)
        -> AuditEventRecord
    {
        func json(_ w: WebhookRecord) -> JSONValue {
            .object([
                "url": .string(w.url), "events": .array(w.events.map(JSONValue.string)),
                "active": .bool(w.active), "version": .number(String(w.version)),
            ])
        }
        return AuditEntry(
            action: action, entityType: "webhook", entityID: webhook.id.uuidString.lowercased(),
            team: webhook.teamName, before: before.map(json), after: after.map(json)
        ).record(by: actor)
    }

    /// https only, no user information, no control characters, and a host that is not (and does
    /// not resolve to) a private address, unless the operator's resolution overrides name it.
    /// Answers the URL as it is stored and posted to: its host normalised (`OutboundURL`).
    package func checkedURL(_ given: String) async throws -> String {
        guard given.utf8.count <= 2048 else {
            throw ServiceError.invalid(field: "/url", rule: "maxLength", "a URL is at most 2048 characters")
        }
        guard !OutboundURL.hasControlCharacter(given) else {
            throw ServiceError.invalid(
                field: "/url", rule: "control-character", "a webhook URL holds no control characters (CR, LF, tab…)")
        }
        guard let outbound = OutboundURL(given), let url = URL(string: outbound.text), url.scheme == "https",
            url.host?.isEmpty == false, url.user == nil, url.password == nil
        else {
            throw ServiceError.invalid(
                field: "/url", rule: "https", "a webhook URL is https://HOST/…, without user information")
        }
        let (text, host) = (outbound.text, outbound.host)
        if fetch.allowPrivate { return text }
        func refuse(_ address: String) -> ServiceError {
            ServiceError.invalid(
                field: "/url", rule: "private-address",
                "\(host) resolves to \(address), a private address: aasad does not post into its own network")
        }
        do {
            // An empty answer gives nothing to check: refused as the host itself.
            if let addresses = try await fetch.checkedAddresses(of: host), addresses.isEmpty { throw refuse(host) }
        } catch let refused as PrivateAddressRefused {
            throw refuse(refused.address)
        } catch let problem as ServiceError {
            throw problem
        } catch {
            throw ServiceError.invalid(field: "/url", rule: "resolve", "\(host) does not resolve: \(error)")
        }
        return text
    }

    package static func checkedEvents(_ events: [String]) throws -> [String] {
        guard events.count <= 20 else {
            throw ServiceError.invalid(field: "/events", rule: "maxItems", "at most 20 event names")
        }
        for (i, name) in events.enumerated() where !WebhookEvent.names.contains(name) {
            throw ServiceError.invalid(
                field: "/events/\(i)", rule: "event",
                "no event \(name); the events are \(WebhookEvent.names.joined(separator: ", "))")
        }
        return events.uniqued()
    }

    package static func checkedDescription(_ text: String) throws -> String {
        guard text.count <= 500 else {
            throw ServiceError.invalid(
                field: "/description", rule: "maxLength", "a description is at most 500 characters")
        }
        return text
    }
}
