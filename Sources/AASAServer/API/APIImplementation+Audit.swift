import AASAAPI
import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import OpenAPIRuntime

extension APIImplementation {
    func listAuditEvents(_ input: Operations.ListAuditEvents.Input) async throws -> Operations.ListAuditEvents.Output {
        .ok(.init(body: .json(try await auditPage(input, payloads: true))))
    }

    /// One page of the audit trail as this principal may read it. `payloads: false` leaves each
    /// event's before/after out (the console's list does not show them, and building the runtime's
    /// free-form containers was most of its audit page's time in the profile).
    func auditPage(_ input: Operations.ListAuditEvents.Input, payloads: Bool) async throws
        -> Components.Schemas.AuditPage
    {
        let principal = try principal()
        let q = input.query
        var filter = AuditFilter(
            team: q.team, domain: q.domain, appID: q.app, action: q.action, since: q.since, until: q.until,
            limit: try Names.limit(q.limit, default: 100))
        if let domain = q.domain { filter.domain = (try? Names.pathHost(domain)) ?? domain }
        if let action = q.action, action.unicodeScalars.count > 64 {
            throw ServiceError.badRequest("action is at most 64 characters", field: "action", rule: "maxLength")
        }
        if let actor = q.actor {
            guard let id = UUIDText.parse(actor) else {
                throw ServiceError.badRequest("actor is a token ID (UUID)", field: "actor", rule: "uuid")
            }
            filter.actor = id
        }
        // Event IDs are PostgreSQL `bigint`s.
        if let cursor = q.cursor { filter.before = try PageCursor.number(.audit, cursor, as: Int64.self) }
        // A team token reads its own team's history only.
        if !principal.isAdmin {
            guard let own = principal.teamName else { throw ServiceError.forbidden("this token belongs to no team") }
            if let asked = q.team, asked != own {
                throw ServiceError.forbidden("a team token reads its own team's audit trail only")
            }
            filter.team = own
        }
        let events = try await reads(principal).audit(filter)
        let items = try events.map { e in
            Components.Schemas.AuditEvent(
                id: String(e.id), at: e.at,
                actor: .init(tokenID: e.actorToken?.uuidString.lowercased(), name: e.actorName, team: e.actorTeam),
                team: e.team, domain: e.domain, appID: e.appID, action: e.action, entityType: e.entityType,
                entityID: e.entityID,
                before: try e.before.flatMap { payloads ? try OpenAPIValueContainer(json: $0) : nil },
                after: try e.after.flatMap { payloads ? try OpenAPIValueContainer(json: $0) : nil },
                requestId: e.requestID)
        }
        let next = events.count == filter.limit ? events.last.map { Self.encodeCursor($0.id) } : nil
        return .init(items: items, nextCursor: next)
    }

    /// The last event ID seen, in the one cursor of every list.
    static func encodeCursor(_ id: Int64) -> String { PageCursor.encode(.audit, String(id)) }
}
