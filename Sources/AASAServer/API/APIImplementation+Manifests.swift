import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
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
        for i in domains.indices {
            let published = result.published[domains[i].host]
            domains[i].publish = try published?.outcome.map(Self.publishResult)
            domains[i].publishError = published?.failure
        }
        let answer = Components.Schemas.ManifestResult(
            team: result.team, dryRun: dryRun, changed: result.changed,
            stateTag: result.stateTag, apps: result.apps.map(Components.Schemas.ManifestAppChange.init),
            domains: domains)
        return .ok(.init(headers: .init(eTag: result.stateTag), body: .json(answer)))
    }
}
