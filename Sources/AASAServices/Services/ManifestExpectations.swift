import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

extension ManifestApply {
    /// Makes the team's golden URLs on `domain` what the manifest's `expect:` lists, in the apply's
    /// transaction and against the draft the manifest itself leaves (`rendered`): a manifest can
    /// change its rules and its expectations together. An expectation the manifest keeps (same
    /// URL, kind and app) keeps its ID and history; new ones must hold in that draft (422 with the
    /// manifest's pointer otherwise). Runs before the policies, so an expectation the manifest
    /// drops no longer guards the change that drops it. A manifest is the team's own file, so its
    /// expectations are the team's whoever applies it: each lies inside the team's grant.
    package static func syncExpectations(
        _ wanted: [ExpectationInput], pointer: String, team: TeamRecord, domain: DomainRecord,
        rendered: DomainDocument, actor: Actor,
        session: DBSession
    ) async throws -> (changes: [ManifestExpectationChange], errors: [FieldError]) {
        let current = try await session.listExpectations(domainID: domain.id).filter { $0.teamID == team.id }
        let evaluation = try await ExpectationService.Evaluation(rendered, domain: domain, session: session)
        let owner = ExpectationService.TeamRef(id: team.id, name: team.name)
        var changes: [ManifestExpectationChange] = []
        var errors: [FieldError] = []
        func change(
            _ url: String, _ kind: String, _ appID: String?,
            _ action: ManifestExpectationChange.Action
        ) {
            changes.append(.init(url: url, kind: kind, appID: appID, action: action))
        }
        for old in current where !wanted.contains(where: { $0.sameTarget(old) }) {
            try await session.deleteExpectation(id: old.id)
            try await session.appendAudit(
                ExpectationService.audit("expectation.delete", domain: domain, before: old, after: nil).record(
                    by: actor))
            change(old.url, old.kind, old.appID, .delete)
        }
        for (k, input) in wanted.enumerated() {
            let previous = current.first(where: input.sameTarget)
            if let previous, previous.source == input.source, previous.description == input.description {
                change(input.url, input.kind.rawValue, input.appID, .unchanged)
                continue
            }
            do {
                let stored = try await ExpectationService.store(
                    input, id: previous?.id ?? UUID(), previous: previous, domain: domain, team: owner,
                    pointer: "\(pointer)/expect/\(k)", adminPinned: false, evaluation: evaluation, session: session)
                try await session.appendAudit(
                    ExpectationService.audit(
                        previous == nil ? "expectation.create" : "expectation.update",
                        domain: domain, before: previous, after: stored
                    ).record(by: actor))
                change(input.url, input.kind.rawValue, input.appID, previous == nil ? .create : .update)
            } catch let problem as ServiceError
                where problem.kind == .invalid || problem.kind == .conflict
            {
                errors += problem.errors
            }
        }
        return (changes, errors)
    }
}
