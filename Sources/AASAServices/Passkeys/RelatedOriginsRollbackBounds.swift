import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore

/// What a rollback of `/.well-known/webauthn` may bring back: a file that is one (`{"origins"}`),
/// whose origins pass today's checks (https, unique, at most five labels); and, for a team, a
/// change only to origins that team lists today (an admin rolls back any).
enum RelatedOriginsRollbackBounds {
    static func check(
        _ old: [UInt8], number: Int, domain: DomainRecord, current: RevisionRecord?, team: String?, session: DBSession
    ) async throws {
        guard let origins = RelatedOrigins.parse(old) else {
            throw ServiceError.invalid(
                field: "number", rule: "webauthn-file", "webauthn revision \(number) is not an origins file")
        }
        if let problem = RelatedOrigins.check(origins).problems.first {
            throw ServiceError.invalid(
                field: "number", rule: problem.rule,
                "webauthn revision \(number) lists what today's checks refuse: \(problem.message)")
        }
        guard let team else { return }
        let now = current.flatMap { RelatedOrigins.parse($0.bytes) } ?? []
        let owned = Set(try await session.relatedOrigins(domainID: domain.id).filter { $0.team == team }.map(\.origin))
        let changed = Set(origins).symmetricDifference(now)
        if let other = changed.sorted().first(where: { !owned.contains($0) }) {
            throw ServiceError.forbidden(
                "rolling back to webauthn revision \(number) changes \(other), which team \(team) does not list; "
                    + "a team rolls back only its own related origins")
        }
    }
}
