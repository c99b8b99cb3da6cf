import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import OpenAPIRuntime

extension APIImplementation {
    func listEnvironments(
        _ input: Operations.ListEnvironments.Input
    ) async throws -> Operations.ListEnvironments.Output {
        let environments = try await reads(try principal()).environments()
        return .ok(.init(body: .json(.init(items: Self.environments(environments)))))
    }

    func replaceEnvironments(
        _ input: Operations.ReplaceEnvironments.Input
    ) async throws -> Operations.ReplaceEnvironments.Output {
        let body =
            switch input.body {
            case .json(let body): body
            }
        let changed = try await change(EnvironmentsChange(names: body.environments))
        return .ok(.init(body: .json(.init(items: Self.environments(changed.output)))))
    }

    static func environments(_ list: [EnvironmentRecord]) -> [Components.Schemas.Environment] {
        list.enumerated().map { i, e in
            .init(name: e.name, position: i, production: i == list.count - 1, domainCount: e.domainCount)
        }
    }

    func getBuilds(_ input: Operations.GetBuilds.Input) async throws -> Operations.GetBuilds.Output {
        let (app, builds) = try await reads(try principal()).builds(input.path.appID)
        return .ok(
            .init(headers: .init(eTag: ETag.of(app.version)), body: .json(.init(builds: builds.map(Self.build)))))
    }

    func replaceBuilds(_ input: Operations.ReplaceBuilds.Input) async throws -> Operations.ReplaceBuilds.Output {
        let body =
            switch input.body {
            case .json(let body): body
            }
        let items = Self.buildItems(body.builds)
        try BuildsInput.checkBounds(items)
        _ = try await change(BuildsChange(appID: input.path.appID, items: items, ifMatch: input.headers.ifMatch))
        let (app, builds) = try await reads(try principal()).builds(input.path.appID)
        return .ok(
            .init(headers: .init(eTag: ETag.of(app.version)), body: .json(.init(builds: builds.map(Self.build)))))
    }

    /// Builds as a body gives them (the builds API's and a manifest's).
    static func buildItems(_ builds: [Components.Schemas.Build]) -> [BuildsInput.Item] {
        builds.map {
            BuildsInput.Item(
                environment: $0.environment, appID: $0.appID,
                fingerprints: $0.fingerprints?.map { LabelledFingerprint(sha256: $0.sha256, label: $0.label) },
                playSigningAbsent: $0.playSigningAbsent ?? false)
        }
    }

    static func build(_ b: BuildRecord) -> Components.Schemas.Build {
        .init(
            environment: b.environment, appID: b.identity,
            fingerprints: b.fingerprints.isEmpty
                ? nil : b.fingerprints.map { .init(sha256: $0.sha256, label: $0.label) },
            playSigningAbsent: b.playSigningAbsent ? true : nil)
    }

    func promote(_ input: Operations.Promote.Input) async throws -> Operations.Promote.Output {
        let principal = try principal()
        let body =
            switch input.body {
            case .json(let body): body
            }
        try BuildsInput.checkEnvironmentName(body.from, field: "/from")
        try BuildsInput.checkEnvironmentName(body.to, field: "/to")
        if (body.domains?.count ?? 0) > 500 {
            throw ServiceError.invalid(field: "/domains", rule: "maxItems", "at most 500 domains")
        }
        if let reason = body.reason, reason.unicodeScalars.count > 1000 {
            throw ServiceError.invalid(field: "/reason", rule: "maxLength", "a reason is at most 1000 characters")
        }
        let domains = (body.domains ?? []).map { entry -> (source: String?, target: String) in
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            return parts.count == 2 ? (parts[0], parts[1]) : (nil, entry)
        }
        let plan = try await PromotionService(
            work: work, publisher: publisher, principal: principal, actor: actor(principal),
            maxRulesPerTeam: maxRulesPerTeamPerDomain, logger: logger
        ).run(
            .init(
                from: body.from, to: body.to, domains: domains, takeDrafts: body.takeDrafts == true,
                apply: body.apply == true, reason: body.reason))
        return .ok(.init(body: .json(try Self.promotion(plan))))
    }

    static func promotion(_ plan: PromotionService.Plan) throws -> Components.Schemas.Promotion {
        .init(
            from: plan.from, to: plan.to,
            domains: try plan.domains.map { d in
                .init(
                    source: d.source, sourceRevision: d.sourceRevision, fromDraft: d.fromDraft, target: d.target,
                    apps: try d.apps.map { a in
                        .init(
                            appID: a.appID, team: a.team,
                            gained: try a.gained.map { try OpenAPIObjectContainer(json: $0) },
                            lost: try a.lost.map { try OpenAPIObjectContainer(json: $0) })
                    },
                    diff: try d.diff.map { try OpenAPIValueContainer(json: $0) },
                    warnings: d.warnings.map(Components.Schemas.Finding.init), revision: d.revision)
            }, unpaired: plan.unpaired, applied: plan.applied)
    }
}
