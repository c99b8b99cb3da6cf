import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore

/// The organisation's environments replaced as a whole, in promotion order (admin only): new names
/// are added, missing ones removed (refused while a domain or a build is in one), and the last is
/// production. Which environment is production decides what the isolation policy asks of Android
/// keys, so the domains of the old and the new production environment are judged again.
package struct EnvironmentsChange: DomainChange {
    package let names: [String]

    package init(names: [String]) {
        self.names = names
    }
    package var action: String { "environments.replace" }

    package func authorize(_ principal: Principal) throws {
        guard principal.isAdmin else { throw ServiceError.forbidden("this needs an admin token") }
    }

    package func lock(_ session: DBSession, principal: Principal) async throws -> [EnvironmentRecord] {
        try await session.listEnvironments()
    }

    package func apply(
        _ before: [EnvironmentRecord], principal: Principal, session: DBSession
    ) async throws -> Applied<[EnvironmentRecord]> {
        var errors: [FieldError] = []
        if names.isEmpty {
            errors.append(FieldError(field: "/environments", rule: "minItems", message: "at least one"))
        }
        if names.count > 20 {
            errors.append(FieldError(field: "/environments", rule: "maxItems", message: "at most 20"))
        }
        for (i, name) in names.enumerated() {
            if !BuildsInput.isName(name) {
                errors.append(
                    FieldError(
                        field: "/environments/\(i)", rule: "name",
                        message: "an environment's name is 1 to 32 lower-case letters, digits and hyphens"))
            } else if names[..<i].contains(name) {
                errors.append(
                    FieldError(field: "/environments/\(i)", rule: "unique", message: "\(name) is listed twice"))
            }
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }
        let builds = try await session.buildCounts()
        for gone in before where !names.contains(gone.name) {
            let count = gone.domainCount + (builds[gone.name] ?? 0)
            guard count == 0 else {
                throw ServiceError.conflict(
                    """
                    \(gone.name) still has \(gone.domainCount) domains and \(builds[gone.name] ?? 0) builds; move \
                    them to another environment first
                    """,
                    field: "/environments", rule: "in-use")
            }
        }
        try await session.replaceEnvironments(names)
        let after = try await session.listEnvironments()
        var domains: [Int64] = []
        if before.last?.name != after.last?.name {
            for name in [before.last?.name, after.last?.name].compactMap({ $0 }) where names.contains(name) {
                domains += try await session.domainIDs(inEnvironment: name)
            }
        }
        return Applied(
            output: after, domains: domains,
            audit: [
                AuditEntry(
                    action: action, entityType: "environments", entityID: "environments",
                    before: .array(before.map { .string($0.name) }), after: .array(after.map { .string($0.name) }))
            ])
    }
}
