import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import Logging
import OpenAPIRuntime

extension APIImplementation {
    static func reason(_ body: Components.Schemas.PublishRequest) throws -> String {
        let reason = body.reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty else {
            throw ServiceError.invalid(field: "/reason", rule: "non-empty", "say why you publish")
        }
        guard body.reason.count <= 1000 else {
            throw ServiceError.badRequest("a reason is at most 1000 characters", field: "/reason", rule: "maxLength")
        }
        return reason
    }

    func publishDomain(_ input: Operations.PublishDomain.Input) async throws -> Operations.PublishDomain.Output {
        let principal = try principal()
        let body =
            switch input.body {
            case .json(let body): body
            }
        let outcome = try await publisher.publish(
            host: try Names.pathHost(input.path.host), reason: try Self.reason(body),
            source: .draft, actor: actor(principal), logger: logger, dryRun: input.query.dryRun == true,
            authorize: PublishRights.check(principal))
        let result = try Self.publishResult(outcome)
        return result.created && !outcome.dryRun
            ? .created(.init(body: .json(result))) : .ok(.init(body: .json(result)))
    }

    func rollbackRevision(_ input: Operations.RollbackRevision.Input) async throws -> Operations.RollbackRevision.Output
    {
        let principal = try principal()
        let body =
            switch input.body {
            case .json(let body): body
            }
        let outcome = try await publisher.publish(
            host: try Names.pathHost(input.path.host), reason: try Self.reason(body),
            source: .revision(.aasa, Int(input.path.number), team: principal.isAdmin ? nil : principal.teamName),
            actor: actor(principal),
            logger: logger, authorize: PublishRights.check(principal))
        let result = try Self.publishResult(outcome)
        return result.created ? .created(.init(body: .json(result))) : .ok(.init(body: .json(result)))
    }

    func listRevisions(_ input: Operations.ListRevisions.Input) async throws -> Operations.ListRevisions.Output {
        .ok(
            .init(
                body: .json(
                    try await revisionPage(
                        .aasa, host: input.path.host, cursor: input.query.cursor,
                        before: input.query.deprecatedBefore, limit: input.query.limit))))
    }

    /// One page of a published file's revisions, for the AASA's list route and assetlinks.json's alike.
    func revisionPage(_ file: PublishedFile, host: String, cursor: String?, before: Int32?, limit: Int?)
        async throws -> Components.Schemas.RevisionPage
    {
        let limit = try Names.limit(limit, default: 50)
        let (host, items) = try await reads(try principal()).revisions(
            of: file, host, before: try PageCursor.revisionBefore(cursor: cursor, before: before), limit: limit)
        let next = items.count == limit && (items.last?.number ?? 0) > 1 ? items.last?.number : nil
        return .init(
            items: try items.map { try Self.revision($0, host: host, withDiff: false) },
            nextCursor: next.map { PageCursor.encode(.revisions, String($0)) }, nextBefore: next)
    }

    func getRevision(_ input: Operations.GetRevision.Input) async throws -> Operations.GetRevision.Output {
        let (host, revision) = try await reads(try principal()).revision(
            input.path.host, number: Int(input.path.number))
        return .ok(
            .init(
                headers: .init(eTag: "\"sha256-\(revision.sha256)\""),
                body: .json(try Self.revision(revision, host: host, withDiff: true))))
    }

    func diffRevisions(_ input: Operations.DiffRevisions.Input) async throws -> Operations.DiffRevisions.Output {
        let principal = try principal()
        let (host, old, new) = try await reads(principal).diffInputs(
            input.path.host, from: Int(input.query.from), to: input.query.to)
        let diff = try await DiffAnswers.answer("aasa", host: host, old: old, new: new) {
            DocumentDiff(from: try AASADocument(json: old), to: try AASADocument(json: new), host: host).jsonValue
        }
        return .ok(
            .init(
                body: .json(
                    .init(
                        from: Int(input.query.from), to: input.query.to, diff: try OpenAPIValueContainer(json: diff)))))
    }

    func matchURL(_ input: Operations.MatchURL.Input) async throws -> Operations.MatchURL.Output {
        let principal = try principal()
        let body =
            switch input.body {
            case .json(let body): body
            }
        let source = body.source ?? .published
        let platform = body.platform ?? .ios
        let answer = try await MatchService(reads: reads(principal)).match(
            .init(
                url: body.url, draft: source == .draft,
                platform: platform == .ios ? .ios : platform == .android ? .android : .both,
                explain: body.explain == true, expectedAppID: body.expectedAppID))
        var result = Components.Schemas.MatchResult(
            url: body.url, host: answer.source.host, source: source == .draft ? .draft : .published,
            revision: answer.source.revision, decisions: [], wildcardParent: answer.source.wildcardParent)
        if let ios = answer.ios {
            result.appID = ios.resolution.appID
            result.decisions = ios.resolution.decisions.map {
                .init(
                    appID: $0.appID,
                    decision: $0.decision.decision == .match
                        ? .match : $0.decision.decision == .exclude ? .exclude : .none)
            }
            if let rule = ios.rule {
                result.rule = .init(
                    team: rule.team, appID: ios.resolution.appID ?? "", ruleID: rule.ruleID, path: rule.path)
            }
            if let explanation = ios.explanation {
                result.explanation = try ExplanationJSON.explanation(
                    explanation, document: answer.source.document, serverHints: answer.hints)
            }
        } else if body.explain == true && platform != .android {
            result.explanation = .init(
                apps: [], hints: answer.hints.map { .init(code: $0.code, message: $0.message) })
        }
        if let android = answer.android {
            result.android = android.json(revision: answer.source.assetLinksRevision, teams: answer.teams)
            if platform == .both {
                result.disagreement = android.disagreement(iosOpener: result.appID, teams: answer.teams)
            }
        }
        return .ok(.init(body: .json(result)))
    }

    static func revision(_ r: RevisionRecord, host: String, withDiff: Bool) throws -> Components.Schemas.Revision {
        .init(
            host: host, number: r.number, sha256: r.sha256, byteCount: r.byteCount,
            actor: .init(tokenID: r.actorToken?.uuidString.lowercased(), name: r.actorName), reason: r.reason,
            createdAt: r.createdAt, rollbackOf: r.rollbackOf,
            promotedFrom: r.promotedFrom.map {
                .init(
                    host: $0.host, revision: $0.revision, fromDraft: $0.fromDraft, draftSHA256: $0.draftSHA256,
                    draftBase: $0.draftBase)
            },
            diff: withDiff ? try r.diff.map { try OpenAPIValueContainer(json: $0) } : nil,
            overrides: r.overrides.arrayValue?.isEmpty == false
                ? try r.overrides.arrayValue?.map { try OpenAPIObjectContainer(json: $0) } : nil)
    }

    /// The answer of a publish or an AASA rollback: the AASA's revision first, then every file it settled.
    static func publishResult(_ o: Publisher.Outcome) throws -> Components.Schemas.PublishResult {
        let aasa = o.primary
        return .init(
            revision: try (try? revision(aasa.revision, host: o.host, withDiff: true))
                ?? revision(aasa.revision, host: o.host, withDiff: false),
            created: o.files.contains(where: \.created),
            files: fileRevisions(o),
            targets: aasa.targets.map { .init(webRoot: $0.webRoot, ok: $0.ok, error: $0.error, paths: $0.paths) },
            objectTargets: o.objects.isEmpty
                ? nil : try o.objects.map { try SameJSON.convert($0, to: Components.Schemas.ObjectTargetOutcome.self) },
            warnings: o.warnings.map(Components.Schemas.Finding.init),
            dryRun: o.dryRun ? true : nil,
            cdn: o.dryRun ? nil : cdnNote(o.host),
            assetLinks: o.assetLinks.map { assetLinksPublish($0, host: o.host) },
            webauthn: o.files.first { $0.file == .webauthn }.map { assetLinksPublish($0, host: o.host) })
    }

    /// Each file a publish settled, the AASA first: its current revision and whether this made it.
    static func fileRevisions(_ o: Publisher.Outcome) -> [Components.Schemas.FileRevision] {
        o.files.map {
            .init(
                file: .init(rawValue: $0.file.name) ?? .appleAppSiteAssociation,
                revision: $0.revision.number, created: $0.created)
        }
    }

    /// What a publish cannot do: make Apple's CDN fetch now.
    static func cdnNote(_ host: String) -> String {
        "Apple's CDN fetches the new file on its own schedule (up to 48 h). Watch it with `aasactl cdn \(host)` "
            + "(GET /v1/domains/\(host)/cdn); check the origin now with `aasactl probe \(host)`; test without waiting "
            + "on a development "
            + "device with the entitlement applinks:\(host)?mode=developer."
    }
}
