import AASAKernel
import AASAModel
import AASAStore
import Foundation

/// Which identity-provider groups give what in the console (issue 53): one list for the
/// organisation, replaced whole by an admin, in one transaction with its audit event and If-Match
/// on its version. A person's sign-in reads it (`consoleGrants`); a change counts for them at their
/// next sign-in, which their token's expiry (the ID token's, at most an hour) forces.
package struct ConsoleMappingService: Sendable {
    package let work: RequestWork
    package let principal: Principal
    package let actor: Actor
    /// The sign-in providers this aasad has (`AASA_CONSOLE_OIDC_FILE`): a mapping names one of them.
    package let providers: [String]

    package static let maxMappings = 500

    package init(work: RequestWork, principal: Principal, actor: Actor, providers: [String]) {
        self.work = work
        self.principal = principal
        self.actor = actor
        self.providers = providers
    }

    package func mappings() async throws -> (mappings: [ConsoleGroupMapping], version: Int64) {
        try requireAdmin()
        return try await work.read { try await $0.consoleMappings() }
    }

    package func replace(_ mappings: [ConsoleGroupMapping], ifMatch: String?) async throws -> (
        mappings: [ConsoleGroupMapping], version: Int64
    ) {
        try requireAdmin()
        try Self.check(mappings)
        try Self.checkProviders(mappings, configured: providers)
        return try await work.transaction { session in
            let before = try await session.consoleMappings(forUpdate: true)
            try ETag.check(ifMatch, version: before.version)
            var resolved: [(ConsoleGroupMapping, teamID: Int64?)] = []
            var unknown: [FieldError] = []
            for (index, mapping) in mappings.enumerated() {
                guard let name = mapping.team else {
                    resolved.append((mapping, nil))
                    continue
                }
                if let team = try await session.team(named: name) {
                    resolved.append((mapping, team.id))
                } else {
                    unknown.append(
                        FieldError(
                            field: "/mappings/\(index)/team", rule: "exists", message: "there is no team \(name)"))
                }
            }
            guard unknown.isEmpty else { throw ServiceError.invalid(unknown) }
            let version = try await session.replaceConsoleMappings(resolved)
            try await session.appendAudit(
                AuditEntry(
                    action: "console.mappings", entityType: "console-mappings", entityID: "console",
                    before: Self.audit(before.mappings), after: Self.audit(mappings)
                ).record(by: actor))
            return (mappings, version)
        }
    }

    /// Each mapping names a provider this aasad has: a mapping for another one (a typo, or the example
    /// file's name) was accepted and matched nobody, so everyone was refused at sign-in.
    package static func checkProviders(_ mappings: [ConsoleGroupMapping], configured: [String]) throws {
        let errors = mappings.enumerated().compactMap { index, mapping -> FieldError? in
            guard !configured.contains(mapping.provider) else { return nil }
            let known =
                configured.isEmpty
                ? "this aasad has none (AASA_CONSOLE_OIDC_FILE names the providers)"
                : "this aasad has \(configured.sorted().joined(separator: ", ")) (AASA_CONSOLE_OIDC_FILE)"
            return FieldError(
                field: "/mappings/\(index)/provider", rule: "provider",
                message: "there is no sign-in provider \(mapping.provider): \(known)")
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }
    }

    /// Each mapping's shape, naming the field and the rule: a provider name, a group of 1 to 256
    /// characters without control characters, `admin` with no team and `read`/`write` with one,
    /// and no mapping twice.
    package static func check(_ mappings: [ConsoleGroupMapping]) throws {
        var errors: [FieldError] = []
        if mappings.count > maxMappings {
            errors.append(
                FieldError(field: "/mappings", rule: "maxItems", message: "at most \(maxMappings) mappings"))
        }
        var seen: Set<String> = []
        for (index, mapping) in mappings.enumerated() {
            let at = "/mappings/\(index)"
            if !BuildsInput.isName(mapping.provider) {
                errors.append(
                    FieldError(
                        field: "\(at)/provider", rule: "name",
                        message: "a provider's name: 1 to 32 lower-case letters, digits and hyphens"))
            }
            if mapping.group.isEmpty || mapping.group.utf8.count > 256
                || mapping.group.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) })
            {
                errors.append(
                    FieldError(
                        field: "\(at)/group", rule: "group",
                        message: "1 to 256 characters without control characters, as the provider names the group"))
            }
            switch (mapping.role, mapping.team) {
            case ("admin", nil), ("read", .some), ("write", .some): break
            case ("admin", .some):
                errors.append(
                    FieldError(
                        field: "\(at)/team", rule: "admin-has-no-team",
                        message: "admin is the organisation's role: name no team"))
            case ("read", nil), ("write", nil):
                errors.append(
                    FieldError(
                        field: "\(at)/team", rule: "required",
                        message: "\(mapping.role) is a team's role: name the team"))
            default:
                errors.append(FieldError(field: "\(at)/role", rule: "enum", message: "read, write or admin"))
            }
            let key = [mapping.provider, mapping.group, mapping.team ?? "", mapping.role].joined(separator: "\u{0}")
            if !seen.insert(key).inserted {
                errors.append(FieldError(field: at, rule: "unique", message: "this mapping is listed twice"))
            }
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }
    }

    private func requireAdmin() throws {
        guard principal.isAdmin else { throw ServiceError.forbidden("this needs an admin token") }
    }

    static func audit(_ mappings: [ConsoleGroupMapping]) -> JSONValue {
        .array(
            mappings.map { mapping in
                var o: JSONObject = ["provider": .string(mapping.provider), "group": .string(mapping.group)]
                if let team = mapping.team { o.append("team", .string(team)) }
                o.append("role", .string(mapping.role))
                return .object(o)
            })
    }
}
