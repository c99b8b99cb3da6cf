import AASAKernel
import AASAModel
import AASAStore
import Foundation

/// The one check of a write of one app's rules on one domain, under the rules API and a manifest
/// alike. A write that leaves the app with rules must find, in this order:
///
/// 1. the app takes rules (`applinks-disabled` when its applinks service is off);
/// 2. the app keeps its own rules (`rules-from` when it follows another app's);
/// 3. its team holds a grant on the domain (`no-grant`);
/// 4. every rule inside that grant (`GrantCoverage`: `outside-grant`, `catch-all`);
/// 5. the team's budgets (`RuleBudget`: `max-rules`, `budget-rules`, `budget-bytes`).
///
/// An Android app's statement left to its manifest (`manifestDecides`, no rules) is a claim on the
/// whole domain: it is checked as one catch-all rule would be (steps 1–4, so it needs a grant of
/// `/`), and only an Android app may make it (`manifest-decides`).
///
/// Every refusal is 422. Emptying an app's rules is always allowed: a team may let go of what it
/// wrote even after losing its grant.
package struct RuleWriteCheck: Sendable {
    package let budget: RuleBudget

    package init(maxRulesPerTeam: Int) { budget = RuleBudget(maxRulesPerTeam) }

    /// Where each refusal points in the caller's request body.
    package struct Fields: Sendable {
        /// The app's ID (steps 1 and 2).
        package var app: String
        /// What names the domain (step 3).
        package var domain: String
        /// The rule list (step 5).
        package var rules: String
        /// The `/` of the rule at an index of the new list (step 4).
        package var rulePath: @Sendable (Int) -> String

        package init(app: String, domain: String, rules: String, rulePath: @escaping @Sendable (Int) -> String) {
            self.app = app
            self.domain = domain
            self.rules = rules
            self.rulePath = rulePath
        }
    }

    /// The first refusal of writing `after` over `before`, or nil when the write may go ahead.
    package func problem(
        _ session: DBSession, domain: DomainRecord, app: AppRecord, before: [StoredRule], after: [StoredRule],
        manifestDecides: Bool = false, fields: Fields
    ) async throws -> FieldError? {
        guard !after.isEmpty || manifestDecides else { return nil }
        if manifestDecides && (app.platform != .android || !after.isEmpty) {
            return FieldError(
                field: fields.rules, rule: "manifest-decides",
                message: app.platform != .android
                    ? "only an Android app's statement can leave its links to the app's manifest"
                    : "a statement whose manifest decides has no rules: give rules or manifestDecides, not both")
        }
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
        // The manifest may claim any path of the domain: a catch-all, as far as the grant goes.
        let claimed = manifestDecides ? [StoredRule(id: UUID(), component: .object([:]))] : after
        if let problem = GrantCoverage.problem(
            claimed, grant: grant, team: app.teamName, domain: domain,
            field: manifestDecides ? { _ in fields.rules } : fields.rulePath)
        {
            guard manifestDecides else { return problem }
            return FieldError(
                field: fields.rules, rule: problem.rule,
                message: "a statement its manifest decides may open any path of \(domain.host), so team "
                    + "\(app.teamName)'s grant must be / (it is \(grant.pathPrefixes.joined(separator: ", ")))")
        }
        return try await budget.check(
            session, domain: domain, team: app.teamName, appID: app.appID, before: before, after: after,
            field: fields.rules)
    }
}
