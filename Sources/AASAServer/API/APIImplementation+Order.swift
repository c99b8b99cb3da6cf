import AASAAPI
import AASAStore
import Foundation

extension APIImplementation {
    func getOrder(_ input: Operations.GetOrder.Input) async throws -> Operations.GetOrder.Output {
        _ = try principal()
        let (domain, order) = try await read { session in
            let domain = try await lookupDomain(input.path.host, session: session)
            return (domain, DomainDocument.Draft(try await session.snapshot(of: domain)).order)
        }
        return .ok(.init(headers: .init(eTag: ETag.of(domain.orderVersion)),
                         body: .json(.init(host: domain.host, apps: order, version: domain.orderVersion))))
    }

    func putOrder(_ input: Operations.PutOrder.Input) async throws -> Operations.PutOrder.Output {
        let principal = try principal()
        try requireAdmin(principal)
        guard case .json(let body) = input.body else { throw APIProblem.badRequest("expected application/json") }
        guard Set(body.apps).count == body.apps.count else {
            throw APIProblem.invalid(field: "/apps", rule: "unique", "an app is listed twice")
        }
        let (domain, rendered) = try await write { session in
            let before = try await lookupDomain(input.path.host, session: session, forUpdate: true)
            try ETag.check(input.headers.ifMatch, version: before.orderVersion)
            for (i, appID) in body.apps.enumerated() where try await session.app(appID: appID) == nil {
                throw APIProblem.invalid(field: "/apps/\(i)", rule: "exists", "there is no app \(appID)")
            }
            try await session.updateOrder(domainID: before.id, apps: body.apps)
            let after = try await session.domain(id: before.id)!
            let rendered = try await DomainGate.check(session, domain: after)
            try await audit(session, principal, action: "order.replace", entityType: "order", entityID: after.host,
                            domain: after.host, before: AuditJSON.order(before.appOrder, version: before.orderVersion),
                            after: AuditJSON.order(after.appOrder, version: after.orderVersion))
            return (after, rendered)
        }
        await autoPublishIfEnabled(domain.host, after: "order.replace")
        return .ok(.init(headers: .init(eTag: ETag.of(domain.orderVersion)),
                         body: .json(.init(host: domain.host, apps: rendered.order, version: domain.orderVersion,
                                           warnings: rendered.warnings.map { .init(rendered.finding($0)) }))))
    }
}
