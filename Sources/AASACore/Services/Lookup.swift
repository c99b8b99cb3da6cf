import AASAModel
import AASAStore
import Foundation

/// Finding the rows a request names, with the visibility rule applied the same way everywhere:
/// what the caller may not see is 404, never 403 (its existence is not revealed).
package enum Lookup {
    package static func domain(_ host: String, session: DBSession, forUpdate: Bool = false) async throws -> DomainRecord
    {
        let normalized = try Names.pathHost(host)
        guard let domain = try await session.domain(host: normalized, forUpdate: forUpdate) else {
            throw ServiceError.notFound("no domain \(host)")
        }
        return domain
    }

    /// The app, if the principal may see it: admins, and tokens of the team that owns it.
    package static func visibleApp(_ appID: String, _ principal: Principal, session: DBSession, forUpdate: Bool = false)
        async throws -> AppRecord
    {
        guard let app = try await session.app(appID: appID, forUpdate: forUpdate), principal.canRead(team: app.teamID)
        else {
            throw ServiceError.notFound("no app \(appID)")
        }
        return app
    }

    /// The team, if the principal may see it: admins, and the team's own tokens.
    package static func visibleTeam(_ name: String, _ principal: Principal, session: DBSession, forUpdate: Bool = false)
        async throws -> TeamRecord
    {
        guard let team = try await session.team(named: name, forUpdate: forUpdate), principal.canRead(team: team.id)
        else {
            throw ServiceError.notFound("no team \(name)")
        }
        return team
    }
}

/// Whether rules stay inside a team's grant on a domain.
package enum GrantCoverage {
    /// The index of the first rule whose path space is not inside `prefixes`.
    package static func firstRuleOutside(_ rules: [StoredRule], prefixes: [String], defaults: DomainDefaults) -> Int? {
        rules.firstIndex { rule in
            let c = rule.component.objectValue ?? [:]
            let caseSensitive = c["caseSensitive"]?.boolValue ?? defaults.caseSensitive ?? true
            return !PathGrant.covers(prefixes, pathPattern: c["/"]?.stringValue, caseSensitive: caseSensitive)
        }
    }

    /// The one grant check of a rule write, for the rules API and a manifest alike: the first rule
    /// outside `grant`, as a 422 field error (`catch-all` when only a grant of `/` may hold it,
    /// `outside-grant` otherwise) at `field(index)`, which names the rule's `/` in the request body.
    package static func problem(
        _ rules: [StoredRule], grant: GrantRecord, team: String, domain: DomainRecord, field: (Int) -> String
    ) -> FieldError? {
        guard let index = firstRuleOutside(rules, prefixes: grant.pathPrefixes, defaults: domain.defaults) else {
            return nil
        }
        let prefixes = grant.pathPrefixes.joined(separator: ", ")
        if let reason = catchAll(rules[index], domain: domain) {
            return FieldError(
                field: field(index), rule: "catch-all",
                message: "\(reason); team \(team)'s grant on \(domain.host) is \(prefixes), and only a grant of / "
                    + "may hold a catch-all rule")
        }
        let path =
            rules[index].component.objectValue?["/"]?.stringValue.map { "`\($0)`" } ?? "a rule without `/` (every path)"
        return FieldError(
            field: field(index), rule: "outside-grant",
            message: "\(path) is outside team \(team)'s grant on \(domain.host) (\(prefixes))")
    }

    /// Why a rule outside its grant is a catch-all (it can match every path: `*`, `/?*`,
    /// `$(alpha)*`, no `/` at all), judged on the language it matches, or nil when it is not one.
    package static func catchAll(_ rule: StoredRule, domain: DomainRecord) -> String? {
        let c = rule.component.objectValue ?? [:]
        let caseSensitive = c["caseSensitive"]?.boolValue ?? domain.defaults.caseSensitive ?? true
        let path = c["/"]?.stringValue
        guard
            CatchAllRule.isCatchAll(
                pathPattern: path, caseSensitive: caseSensitive, substitutionVariables: domain.substitutionVariables)
        else { return nil }
        return path.map { "the rule `\($0)` matches every path" } ?? "a rule without `/` matches every path"
    }
}

extension JSONPointer {
    /// The reference tokens of a pointer written as text (`/a/b~1c` → `a`, `b/c`).
    package static func tokens(of pointer: String) -> [String] {
        pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
    }
}
