import AASAKernel
import AASAModel
import AASAStore

extension RollbackBounds {
    /// Refuses (422) a rollback to an AASA revision that today's grants or apps do not allow, or that
    /// is not a valid file, naming every part that is out of bounds; for a team (`team`, nil for an
    /// admin) also (403) one that would change another team's rules.
    package static func check(
        _ session: DBSession, domain: DomainRecord, number: Int, bytes: [UInt8], current: RevisionRecord?,
        team: String?
    ) async throws {
        let old = try AASADocument(json: bytes)
        let currentDocument = try current.map { try AASADocument(json: $0.bytes) }
        var apps: [String: AppToday] = [:]
        let ids = appIDs(in: old).union(currentDocument.map(appIDs) ?? [])
        // A suspended team is out of the file until resumed: a rollback cannot bring it back.
        let suspended = Set(try await session.suspensions(affecting: domain.id).map(\.teamID))
        for appID in ids.sorted() {
            guard let app = try await session.app(appID: appID) else { continue }
            let grant =
                suspended.contains(app.teamID) ? nil : try await session.grant(domainID: domain.id, teamID: app.teamID)
            apps[appID] = .init(app: app, grantPrefixes: grant?.pathPrefixes)
        }
        var errors = violations(old, apps: apps)
        for d in AASAValidator.validate(
            old, servedByteCount: bytes.count, options: .init(analyzeRules: false, host: domain.host))
        where d.severity == .error {
            errors.append(FieldError(field: d.path.description, rule: d.code.rawValue, message: d.message))
        }
        guard errors.isEmpty else {
            throw ServiceError.invalid(
                errors,
                detail: "revision \(number) of \(domain.host) cannot be published under today's grants and apps: "
                    + ServiceError.listed(errors.map { "\($0.field): \($0.message)" }))
        }
        if let team {
            let changed = otherTeamsChanged(
                old: old, current: currentDocument, team: team, teamOf: apps.mapValues(\.app.teamName))
            guard changed.isEmpty else {
                throw ServiceError.forbidden(
                    "rolling back to revision \(number) would change the rules of team "
                        + "\(changed.joined(separator: ", ")); "
                        + "a team rolls back only its own part of the file, an admin may roll back all of it")
            }
        }
    }
}
