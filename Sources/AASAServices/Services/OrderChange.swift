import AASAKernel
import AASAOutbound
import AASARules
import AASAStore

/// The order in which Apple consults a domain's apps (admin only).
package struct OrderChange: DomainChange {
    package let host: String
    package let apps: [String]
    package let ifMatch: String?

    package init(host: String, apps: [String], ifMatch: String?) {
        self.host = host
        self.apps = apps
        self.ifMatch = ifMatch
    }
    package var action: String { "order.replace" }

    package func authorize(_ principal: Principal) throws {
        guard principal.isAdmin else { throw ServiceError.forbidden("this needs an admin token") }
        guard Set(apps).count == apps.count else {
            throw ServiceError.invalid(field: "/apps", rule: "unique", "an app is listed twice")
        }
    }

    package func lock(_ session: DBSession, principal: Principal) async throws -> DomainRecord {
        try await Lookup.domain(host, session: session, forUpdate: true)
    }

    package func checkIfMatch(_ before: DomainRecord) throws {
        try ETag.check(ifMatch, version: before.orderVersion)
    }

    package func apply(_ before: DomainRecord, principal: Principal, session: DBSession) async throws -> Applied<
        DomainRecord
    > {
        for (i, appID) in apps.enumerated() where try await session.app(appID: appID) == nil {
            throw ServiceError.invalid(field: "/apps/\(i)", rule: "exists", "there is no app \(appID)")
        }
        try await session.updateOrder(domainID: before.id, apps: apps)
        guard let after = try await session.domain(id: before.id) else {
            throw ServiceError.notFound("the domain was deleted")
        }
        return Applied(
            output: after, domains: [after.id],
            audit: [
                AuditEntry(
                    action: action, entityType: "order", entityID: after.host, domain: after.host,
                    before: AuditJSON.order(before.appOrder, version: before.orderVersion),
                    after: AuditJSON.order(after.appOrder, version: after.orderVersion))
            ])
    }
}
