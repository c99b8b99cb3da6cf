import AASAAPI
import AASACore
import AASAModel
import AASAStore
import Crypto
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

extension APIImplementation {
    /// `aasactl plan` (with `dryRun`) and `aasactl apply`: one transaction that locks every domain
    /// the manifest touches, makes the named apps and their rules what it says, validates every
    /// touched domain, and commits — or, for a plan, rolls back and answers what it would do.
    func applyManifest(_ input: Operations.ApplyManifest.Input) async throws -> Operations.ApplyManifest.Output {
        let principal = try principal()
        let body =
            switch input.body {
            case .json(let body): body
            }
        let manifest = try ManifestRequest(body)
        let dryRun = input.query.dryRun ?? false
        let result = try await ManifestApply(
            work: work, pipeline: pipeline, principal: principal, actor: actor(principal),
            maxRulesPerTeam: maxRulesPerTeamPerDomain
        )
        .run(manifest, team: input.path.team, ifMatch: input.headers.ifMatch, dryRun: dryRun)

        var domains = try result.domains.map(Components.Schemas.ManifestDomainResult.init)
        if !dryRun {
            if let reason = manifest.publishReason {
                for i in domains.indices where manifest.domains.contains(where: { $0.host == domains[i].host }) {
                    do {
                        let outcome = try await publisher.publish(
                            host: domains[i].host, reason: reason, source: .draft,
                            actor: actor(principal), logger: logger,
                            authorize: PublishRights.check(principal))
                        domains[i].publish = Self.publishResult(outcome)
                    } catch let problem as ServiceError {
                        domains[i].publishError = problem.detail ?? problem.title
                    } catch {
                        logger.error(
                            "publish after manifest failed",
                            metadata: ["host": .string(domains[i].host), "error": .string("\(error)")])
                        domains[i].publishError = "the publish failed; the manifest is applied, publish again"
                    }
                }
            } else {
                for domain in domains where domain.changed && result.autoPublish.contains(domain.host) {
                    await pipeline.autoPublish(domain.host, after: "manifest", actor: actor(principal), logger: logger)
                }
            }
        }
        let answer = Components.Schemas.ManifestResult(
            team: result.team, dryRun: dryRun, changed: result.changed,
            stateTag: result.stateTag, apps: result.apps.map(Components.Schemas.ManifestAppChange.init),
            domains: domains)
        return .ok(.init(headers: .init(eTag: result.stateTag), body: .json(answer)))
    }
}
