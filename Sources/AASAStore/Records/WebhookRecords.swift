import AASAModel
import Foundation

/// A webhook as stored (its secret is never read back).
public struct WebhookRecord: Sendable, Equatable {
    public var id: UUID
    /// nil: an admin's webhook.
    public var teamID: Int64?
    public var teamName: String?
    public var url: String
    public var events: [String]
    public var description: String
    public var active: Bool
    public var createdAt: Date
    public var version: Int64
}

/// One event's delivery to one webhook.
public struct WebhookDeliveryRecord: Sendable, Equatable {
    public var id: UUID
    public var webhookID: UUID
    public var eventID: Int64
    public var event: String
    public var status: String
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastStatus: Int?
    public var lastError: String?
    public var createdAt: Date
    public var deliveredAt: Date?
}

/// A delivery the worker is to send now: where, signed with what, and the event it carries.
public struct DueDelivery: Sendable {
    public var id: UUID
    public var webhookID: UUID
    public var url: String
    public var secret: String
    public var attempts: Int
    /// When the delivery was first due: retries stop 24 hours after.
    public var createdAt: Date
    public var eventID: Int64
    public var event: WebhookEvent
    public var eventAt: Date
}
