import AASAModel
import AASAStore
import Foundation

/// One audit event: what changed. Who changed it is added by the pipeline (`Actor`).
package struct AuditEntry: Sendable {
    package var action: String
    package var entityType: String
    package var entityID: String
    package var team: String?
    package var domain: String?
    package var appID: String?
    package var before: JSONValue?
    package var after: JSONValue?

    package init(
        action: String, entityType: String, entityID: String, team: String? = nil, domain: String? = nil,
        appID: String? = nil, before: JSONValue? = nil, after: JSONValue? = nil
    ) {
        self.action = action
        self.entityType = entityType
        self.entityID = entityID
        self.team = team
        self.domain = domain
        self.appID = appID
        self.before = before
        self.after = after
    }

    package func record(by actor: Actor) -> AuditEventRecord {
        AuditEventRecord(
            actorToken: actor.tokenID, actorName: actor.name, actorTeam: actor.team, team: team, domain: domain,
            appID: appID, action: action, entityType: entityType, entityID: entityID,
            before: before, after: after, requestID: actor.requestID)
    }
}

/// Who makes a change, as the audit trail records it.
package struct Actor: Sendable {
    package var tokenID: UUID?
    package var name: String
    package var team: String?
    package var requestID: String?
    /// An admin's override of the domain policies for this change, nil for none.
    package var override: PolicyOverride?

    package static let system = Actor(tokenID: nil, name: "system", team: nil, requestID: nil)

    package init(tokenID: UUID?, name: String, team: String?, requestID: String?) {
        self.tokenID = tokenID
        self.name = name
        self.team = team
        self.requestID = requestID
    }

    package init(_ principal: Principal, requestID: String?, override: PolicyOverride? = nil) {
        self.init(tokenID: principal.tokenID, name: principal.auditName, team: principal.teamName, requestID: requestID)
        self.override = override
    }
}
