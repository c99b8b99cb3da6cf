import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation

extension APIImplementation {
    func listDomains(_ input: Operations.ListDomains.Input) async throws -> Operations.ListDomains.Output {
        let principal = try principal()
        let after = try PageCursor.key(
            .domains, cursor: input.query.cursor, deprecated: input.query.deprecatedAfter, name: "after")
        let page = try await reads(principal).domains(try PageRequest(after: after, limit: input.query.limit))
        return .ok(
            .init(
                body: .json(
                    .init(
                        items: page.items.map { Components.Schemas.Domain($0) },
                        nextCursor: page.next.map { PageCursor.encode(.domains, $0) }, nextAfter: page.next))))
    }

    func createDomain(_ input: Operations.CreateDomain.Input) async throws -> Operations.CreateDomain.Output {
        let principal = try principal()
        try requireAdmin(principal)
        let body =
            switch input.body {
            case .json(let body): body
            }
        let host = try Names.domainHost(body.host)
        let settings = try DomainSettings(
            host: host, aliases: body.aliases,
            variables: body.substitutionVariables?.additionalProperties,
            defaults: body.defaults.map(DomainDefaults.init), webRoots: body.webRoots, autoPublish: body.autoPublish,
            legacyRootPath: body.legacyRootPath, current: nil, bases: webRootBases, environment: body.environment)
        let changed = try await change(
            DomainSettingsChange(kind: .create(host: host, settings: settings), ifMatch: nil))
        return .created(
            .init(
                headers: .init(eTag: ETag.of(changed.output.version)),
                body: .json(.init(changed.output, warnings: changed.warnings))))
    }

    func getDomain(_ input: Operations.GetDomain.Input) async throws -> Operations.GetDomain.Output {
        let (domain, unpublished) = try await reads(try principal()).domainWithUnpublished(input.path.host)
        var answer = Components.Schemas.Domain(domain)
        answer.unpublished = .init(aasa: unpublished.aasa, assetLinks: unpublished.assetLinks)
        return .ok(.init(headers: .init(eTag: ETag.of(domain.version)), body: .json(answer)))
    }

    func updateDomain(_ input: Operations.UpdateDomain.Input) async throws -> Operations.UpdateDomain.Output {
        let body =
            switch input.body {
            case .json(let body): body
            }
        let bases = webRootBases
        try BuildsInput.checkEnvironmentName(body.environment, field: "/environment")
        let changed = try await change(
            DomainSettingsChange(
                kind: .update(host: input.path.host) { before in
                    try DomainSettings(
                        host: before.host, aliases: body.aliases,
                        variables: body.substitutionVariables?.additionalProperties,
                        defaults: body.defaults.map(DomainDefaults.init), webRoots: body.webRoots,
                        autoPublish: body.autoPublish,
                        legacyRootPath: body.legacyRootPath, current: before, bases: bases,
                        environment: body.environment)
                }, ifMatch: input.headers.ifMatch))
        return .ok(
            .init(
                headers: .init(eTag: ETag.of(changed.output.version)),
                body: .json(.init(changed.output, warnings: changed.warnings))))
    }

    func deleteDomain(_ input: Operations.DeleteDomain.Input) async throws -> Operations.DeleteDomain.Output {
        _ = try await change(DomainSettingsChange(kind: .delete(host: input.path.host), ifMatch: input.headers.ifMatch))
        return .noContent(.init())
    }
}
