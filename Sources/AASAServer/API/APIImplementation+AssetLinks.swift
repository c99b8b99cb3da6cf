import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import OpenAPIRuntime

/// assetlinks.json: the draft, its revision stream and its rollback (publishing it is part of
/// every publish of the domain).
extension APIImplementation {
    func getAssetLinksDraft(_ input: Operations.GetAssetLinksDraft.Input) async throws
        -> Operations.GetAssetLinksDraft.Output
    {
        let rendered = try await reads(try principal()).draft(input.path.host)
        let android = rendered.android
        let statements = try (android.document.root.arrayValue ?? []).map { try OpenAPIObjectContainer(json: $0) }
        return .ok(
            .init(
                body: .json(
                    .init(
                        host: rendered.host, sha256: Hex.sha256(android.bytes), statements: statements,
                        warnings: android.warnings.map(Components.Schemas.Finding.init)))))
    }

    func listAssetLinksRevisions(_ input: Operations.ListAssetLinksRevisions.Input) async throws
        -> Operations.ListAssetLinksRevisions.Output
    {
        .ok(
            .init(
                body: .json(
                    try await revisionPage(
                        .assetLinks, host: input.path.host, cursor: input.query.cursor,
                        before: input.query.deprecatedBefore, limit: input.query.limit))))
    }

    func diffAssetLinks(_ input: Operations.DiffAssetLinks.Input) async throws -> Operations.DiffAssetLinks.Output {
        let (host, old, new) = try await reads(try principal()).assetLinksDiffInputs(
            input.path.host, from: Int(input.query.from), to: input.query.to)
        // Both halves in one kept answer: the per-app diff, and the URLs a package decides differently.
        let (diff, changes) = try await DiffAnswers.answer("assetlinks", host: host, old: old, new: new) {
            let empty = AssetLinksDocument(statements: [])
            let (a, b) = (
                AssetLinksDocument.parse(old).document ?? empty, AssetLinksDocument.parse(new).document ?? empty
            )
            return (AssetLinksDiff(from: a, to: b), AndroidDecisionChanges(from: a, to: b, host: host, maxChanges: 50))
        }
        let urls = changes.changes.map {
            Components.Schemas.RevisionDiff.UrlChangesPayloadPayload(
                url: $0.url, packageName: $0.packageName, before: .init(rawValue: $0.before.rawValue) ?? .noMatch,
                after: .init(rawValue: $0.after.rawValue) ?? .noMatch)
        }
        return .ok(
            .init(
                body: .json(
                    .init(
                        from: Int(input.query.from), to: input.query.to,
                        diff: try OpenAPIValueContainer(json: diff.jsonValue), urlChanges: urls))))
    }

    func rollbackAssetLinks(_ input: Operations.RollbackAssetLinks.Input) async throws
        -> Operations.RollbackAssetLinks.Output
    {
        let body =
            switch input.body {
            case .json(let body): body
            }
        let (created, result) = try await rollback(.assetLinks, host: input.path.host, number: input.path.number, body)
        return created ? .created(.init(body: .json(result))) : .ok(.init(body: .json(result)))
    }

    /// A rollback of one of the files beside the AASA (assetlinks.json, webauthn): a new revision
    /// with revision `number`'s bytes, the other files left alone; a team only over its own part.
    func rollback(_ file: PublishedFile, host: String, number: Int32, _ body: Components.Schemas.PublishRequest)
        async throws -> (created: Bool, result: Components.Schemas.AssetLinksPublish)
    {
        let principal = try principal()
        let reason = try Self.reason(body)
        let host = try Names.pathHost(host)
        let outcome = try await publisher.publish(
            host: host, reason: reason,
            source: .revision(file, Int(number), team: principal.isAdmin ? nil : principal.teamName),
            actor: actor(principal), logger: logger, authorize: PublishRights.check(principal)
        ).primary
        return (outcome.created, Self.assetLinksPublish(outcome, host: host))
    }

    static func assetLinksPublish(_ o: Publisher.FileOutcome, host: String)
        -> Components.Schemas.AssetLinksPublish
    {
        .init(
            revision: (try? revision(o.revision, host: host, withDiff: false))
                ?? .init(
                    host: host, number: o.revision.number, sha256: o.revision.sha256, byteCount: o.revision.byteCount,
                    actor: .init(name: o.revision.actorName), reason: o.revision.reason, createdAt: o.revision.createdAt
                ),
            created: o.created,
            targets: o.targets.map { .init(webRoot: $0.webRoot, ok: $0.ok, error: $0.error, paths: $0.paths) })
    }
}
