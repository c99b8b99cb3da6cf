import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation

/// Passkeys (issue 52): the domain's related origins (`/.well-known/webauthn`) and their revisions,
/// the apps marked as a relying party's clients, the readiness report and the origins export.
extension APIImplementation {
    func listRelatedOrigins(_ input: Operations.ListRelatedOrigins.Input) async throws
        -> Operations.ListRelatedOrigins.Output
    {
        let (host, origins) = try await reads(try principal()).relatedOrigins(input.path.host)
        return .ok(.init(headers: .init(eTag: RelatedOriginChange.tag(origins)), body: .json(Self.list(host, origins))))
    }

    func addRelatedOrigin(_ input: Operations.AddRelatedOrigin.Input) async throws
        -> Operations.AddRelatedOrigin.Output
    {
        let body =
            switch input.body {
            case .json(let body): body
            }
        let host = try Names.pathHost(input.path.host)
        let changed = try await change(
            RelatedOriginChange(host: host, kind: .add(body.origin), ifMatch: input.headers.ifMatch))
        return .created(
            .init(
                headers: .init(eTag: RelatedOriginChange.tag(changed.output)),
                body: .json(Self.list(changed.documents.first?.host ?? host, changed.output))))
    }

    func removeRelatedOrigin(_ input: Operations.RemoveRelatedOrigin.Input) async throws
        -> Operations.RemoveRelatedOrigin.Output
    {
        let host = try Names.pathHost(input.path.host)
        let changed = try await change(
            RelatedOriginChange(host: host, kind: .remove(input.query.origin), ifMatch: input.headers.ifMatch))
        return .ok(
            .init(
                headers: .init(eTag: RelatedOriginChange.tag(changed.output)),
                body: .json(Self.list(changed.documents.first?.host ?? host, changed.output))))
    }

    static func list(_ host: String, _ origins: [RelatedOriginRecord]) -> Components.Schemas.RelatedOriginList {
        let items = origins.map {
            Components.Schemas.RelatedOriginList.ItemsPayloadPayload(
                origin: $0.origin, team: $0.team, label: RelatedOrigins.label(of: $0.origin) ?? "",
                createdAt: $0.createdAt)
        }
        var labels: [String] = []
        for item in items where !labels.contains(item.label) { labels.append(item.label) }
        return .init(host: host, items: items, labels: labels)
    }

    func listWebauthnRevisions(_ input: Operations.ListWebauthnRevisions.Input) async throws
        -> Operations.ListWebauthnRevisions.Output
    {
        .ok(
            .init(
                body: .json(
                    try await revisionPage(
                        .webauthn, host: input.path.host, cursor: input.query.cursor, before: nil,
                        limit: input.query.limit))))
    }

    func rollbackWebauthn(_ input: Operations.RollbackWebauthn.Input) async throws
        -> Operations.RollbackWebauthn.Output
    {
        let body =
            switch input.body {
            case .json(let body): body
            }
        let (created, result) = try await rollback(.webauthn, host: input.path.host, number: input.path.number, body)
        return created ? .created(.init(body: .json(result))) : .ok(.init(body: .json(result)))
    }

    func getPasskeyRelyingParties(_ input: Operations.GetPasskeyRelyingParties.Input) async throws
        -> Operations.GetPasskeyRelyingParties.Output
    {
        let (appID, relyingParties) = try await reads(try principal()).passkeyRelyingParties(input.path.appID)
        return .ok(.init(body: .json(.init(appID: appID, relyingParties: relyingParties))))
    }

    func setPasskeyRelyingParties(_ input: Operations.SetPasskeyRelyingParties.Input) async throws
        -> Operations.SetPasskeyRelyingParties.Output
    {
        let body =
            switch input.body {
            case .json(let body): body
            }
        let changed = try await change(
            PasskeyClientsChange(
                appID: input.path.appID, relyingParties: body.relyingParties, ifMatch: input.headers.ifMatch))
        return .ok(.init(body: .json(.init(appID: input.path.appID, relyingParties: changed.output))))
    }

    func getRelyingPartyReport(_ input: Operations.GetRelyingPartyReport.Input) async throws
        -> Operations.GetRelyingPartyReport.Output
    {
        let report = try await reads(try principal()).relyingPartyReport(input.path.rpID)
        return .ok(
            .init(
                body: .json(
                    .init(
                        rpID: report.rpID, isDomain: report.isDomain,
                        clients: report.clients.map { client in
                            .init(
                                appID: client.appID, platform: .init(rawValue: client.platform.rawValue) ?? .ios,
                                team: client.team, verdict: .init(rawValue: client.verdict.rawValue) ?? .broken,
                                fix: client.fix,
                                steps: client.steps.map {
                                    .init(name: .init(rawValue: $0.name) ?? .draft, ok: $0.ok, detail: $0.detail)
                                })
                        },
                        web: report.web.map { .init(origin: $0.origin, inDraft: $0.inDraft, published: $0.published) },
                        warnings: report.warnings.map(Components.Schemas.Finding.init)))))
    }

    func getRelyingPartyOrigins(_ input: Operations.GetRelyingPartyOrigins.Input) async throws
        -> Operations.GetRelyingPartyOrigins.Output
    {
        let (rpID, origins) = try await reads(try principal()).relyingPartyOrigins(input.path.rpID)
        return .ok(
            .init(
                body: .json(
                    .init(
                        rpID: rpID,
                        origins: origins.map {
                            .init(
                                origin: $0.origin, kind: .init(rawValue: $0.kind.rawValue) ?? .web, source: $0.source,
                                appID: $0.appID)
                        }))))
    }
}
