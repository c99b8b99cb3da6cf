import AASAKernel
import AASAModel
import AASAStore

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
        let pattern = rules[index].component.objectValue?["/"]?.stringValue
        // A path always starts with /: a pattern that cannot (no slash, no wildcard or variable
        // first) matches no URL. Said as that, not as a grant the newcomer did not get wrong.
        if let pattern, let first = pattern.first, !"/*?$".contains(first) {
            return FieldError(
                field: field(index), rule: "path-slash",
                message: "`\(pattern)` does not start with /, and a URL's path always does, so it matches no URL: "
                    + "write `/\(pattern)`")
        }
        let path = pattern.map { "`\($0)`" } ?? "a rule without `/` (every path)"
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
