import AASAAPI
import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation

extension APIImplementation {
    func getOrder(_ input: Operations.GetOrder.Input) async throws -> Operations.GetOrder.Output {
        let (domain, order) = try await reads(try principal()).order(input.path.host)
        return .ok(
            .init(
                headers: .init(eTag: ETag.of(domain.orderVersion)),
                body: .json(.init(host: domain.host, apps: order, version: domain.orderVersion))))
    }

    func putOrder(_ input: Operations.PutOrder.Input) async throws -> Operations.PutOrder.Output {
        let body =
            switch input.body {
            case .json(let body): body
            }
        let changed = try await change(
            OrderChange(host: input.path.host, apps: body.apps, ifMatch: input.headers.ifMatch))
        let domain = changed.output
        return .ok(
            .init(
                headers: .init(eTag: ETag.of(domain.orderVersion)),
                body: .json(
                    .init(
                        host: domain.host, apps: changed.documents.first?.order ?? [], version: domain.orderVersion,
                        warnings: changed.warnings.map(Components.Schemas.Finding.init)))))
    }
}
