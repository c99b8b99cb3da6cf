import AASAKernel
import AASAModel
import AASAStore

/// How much of a domain one team's rules may take: the server's cap on rules
/// (`--max-rules-per-team`) and the guardrails' budgets on rules and on bytes of the file. A change
/// may not take a team above a budget; a team already above one (the budget was lowered since)
/// may still shrink. Over budget is a field error naming the team's usage (422 at the edge).
package struct RuleBudget: Sendable {
    /// The server's cap, whatever the guardrails say: the rule analysis of a domain grows with its
    /// rules, and one team must not be able to make every write to a shared domain slow.
    package let maximum: Int
    package init(_ maximum: Int) { self.maximum = maximum }

    package func check(
        _ session: DBSession, domain: DomainRecord, team: String, appID: String,
        before: [StoredRule], after: [StoredRule], field: String
    ) async throws -> FieldError? {
        let grows = after.count > before.count
        let guardrails = try await EffectiveGuardrails.of(domainID: domain.id, session: session)
        // Every budget limits growth only: the team's other rule sets are read only when a limit
        // can be reached (more rules, or a byte budget and more bytes).
        let bytes = guardrails.maxBytesPerTeam.map { _ in
            (before: Self.entryBytes(appID, before), after: Self.entryBytes(appID, after))
        }
        guard grows || bytes.map({ $0.after > $0.before }) == true else { return nil }
        let others = try await session.listRuleSets(domainID: domain.id).filter {
            $0.teamName == team && $0.appID != appID
        }
        let otherRules = others.reduce(0) { $0 + $1.rules.count }
        if grows && otherRules + after.count > maximum {
            return FieldError(
                field: field, rule: "max-rules",
                message:
                    """
                    team \(team) would have \(otherRules + after.count) rules on \(domain.host); a team may have at \
                    most \(maximum) on one domain
                    """
            )
        }
        if let budget = guardrails.maxRulesPerTeam, grows, otherRules + after.count > budget {
            return FieldError(
                field: field, rule: "budget-rules",
                message:
                    "team \(team) would have \(otherRules + after.count) rules on \(domain.host) (it has "
                    + "\(otherRules + before.count) now); "
                    + "its budget there is \(budget)")
        }
        if let budget = guardrails.maxBytesPerTeam, let bytes {
            let otherBytes = others.reduce(0) { $0 + Self.entryBytes($1.appID, $1.rules) }
            let (was, will) = (otherBytes + bytes.before, otherBytes + bytes.after)
            if will > was, will > budget {
                return FieldError(
                    field: field, rule: "budget-bytes",
                    message:
                        """
                        team \(team)'s entries would take \(will) bytes of \(domain.host)'s file (they take \(was) \
                        now); its budget there is \(budget) bytes
                        """
                )
            }
        }
        return nil
    }

    /// The bytes an app's `details` entry takes in the rendered file (none without rules).
    package static func entryBytes(_ appID: String, _ rules: [StoredRule]) -> Int {
        guard !rules.isEmpty else { return 0 }
        let entry: JSONValue = .object([
            "appIDs": .array([.string(appID)]), "components": .array(rules.map(\.component)),
        ])
        return JSONWriter().string(entry).utf8.count + 1  // and its comma
    }
}
