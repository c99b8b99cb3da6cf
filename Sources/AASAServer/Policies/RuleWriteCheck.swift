import AASAModel
import AASAStore

/// The one check of a write of one app's rules on one domain, under the rules API and a manifest
/// alike. A write that leaves the app with rules must find, in this order:
///
/// 1. the app takes rules (`applinks-disabled` when its applinks service is off);
/// 2. the app keeps its own rules (`rules-from` when it follows another app's);
/// 3. its team holds a grant on the domain (`no-grant`);
/// 4. every rule inside that grant (`GrantCoverage`: `outside-grant`, `catch-all`);
/// 5. the team's budgets (`RuleBudget`: `max-rules`, `budget-rules`, `budget-bytes`).
///
/// Every refusal is 422. Emptying an app's rules is always allowed: a team may let go of what it
/// wrote even after losing its grant.
struct RuleWriteCheck: Sendable {
    let budget: RuleBudget

    init(maxRulesPerTeam: Int) { budget = RuleBudget(maxRulesPerTeam) }

    /// Where each refusal points in the caller's request body.
    struct Fields {
        /// The app's ID (steps 1 and 2).
        var app: String
        /// What names the domain (step 3).
        var domain: String
        /// The rule list (step 5).
        var rules: String
        /// The `/` of the rule at an index of the new list (step 4).
        var rulePath: (Int) -> String
    }

    /// The first refusal of writing `after` over `before`, or nil when the write may go ahead.
    func problem(
        _ session: DBSession, domain: DomainRecord, app: AppRecord, before: [StoredRule], after: [StoredRule],
        fields: Fields
    ) async throws -> FieldError? {
        guard !after.isEmpty else { return nil }
        guard app.services.contains(.applinks) else {
            return FieldError(
                field: fields.app, rule: "applinks-disabled",
                message: "\(app.appID) does not have the applinks service enabled; add it to the app first")
        }
        if let source = app.rulesFrom {
            return FieldError(
                field: fields.app, rule: "rules-from",
                message:
                    """
                    \(app.appID) follows \(source)'s rules: change those, or make it keep its own \
                    (rulesFrom: "")
                    """)
        }
        guard let grant = try await session.grant(domainID: domain.id, teamID: app.teamID) else {
            return FieldError(
                field: fields.domain, rule: "no-grant",
                message: "team \(app.teamName) holds no grant on \(domain.host); ask an admin for one")
        }
        if let problem = GrantCoverage.problem(
            after, grant: grant, team: app.teamName, domain: domain, field: fields.rulePath)
        {
            return problem
        }
        return try await budget.check(
            session, domain: domain, team: app.teamName, appID: app.appID, before: before, after: after,
            field: fields.rules)
    }
}
