import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// A change to one app's rules on one domain: replace them, append one, or delete one (`Edit`, data
/// the core reads: no closure calls back into the handler). The walk of "a team writes a rule" is
/// the handler (`APIImplementation+Rules.swift`), this file, `RuleWriteCheck` (the rule-write check)
/// and `DomainChangePipeline` (the steps, the validation, the policies, the audit).
package struct RuleSetChange: DomainChange {
    package let host: String
    package let appID: String
    package let ifMatch: String?
    package let action: String
    package let maxRulesPerTeam: Int
    package let edit: Edit
    /// An Android app's statement left to its manifest (no rules); nil keeps what is stored while
    /// the set stays empty (an appended rule replaces it).
    package var manifestDecides: Bool? = nil
    /// Where a refusal points in a composite writer's own body (a manifest's pointers); nil: the
    /// rules API's (`appID`, `host`, `/rules`, each rule by `bodyField`).
    package var fields: RuleWriteCheck.Fields? = nil

    package init(
        host: String, appID: String, ifMatch: String?, action: String, maxRulesPerTeam: Int,
        edit: Edit, manifestDecides: Bool? = nil, fields: RuleWriteCheck.Fields? = nil
    ) {
        self.fields = fields
        self.host = host
        self.appID = appID
        self.ifMatch = ifMatch
        self.action = action
        self.maxRulesPerTeam = maxRulesPerTeam
        self.edit = edit
        self.manifestDecides = manifestDecides
    }

    /// What the write does to the app's current rules.
    package enum Edit: Sendable {
        /// The rules API's PUT: these rules, in order. A refusal names `/rules/<index>`.
        case replace([StoredRule])
        /// The rules API's POST: one rule after the others. A refusal about it names the body's root.
        case append(StoredRule)
        /// The rules API's DELETE: the rule with this ID (404 when there is none).
        case delete(UUID)
        /// A composite writer's whole set (a manifest, an import, a promotion), whose refusals point
        /// into its own body (`fields`), not a rules API body.
        case set([StoredRule])

        package func apply(to current: [StoredRule]) throws -> [StoredRule] {
            switch self {
            case .replace(let rules), .set(let rules): return rules
            case .append(let rule): return current + [rule]
            case .delete(let id):
                guard current.contains(where: { $0.id == id }) else {
                    throw ServiceError.notFound("no rule \(id.uuidString.lowercased())")
                }
                return current.filter { $0.id != id }
            }
        }

        /// The request-body pointer of a rule the request wrote (by ID and position), if it did.
        package func bodyField(_ id: UUID, _ index: Int) -> String? {
            switch self {
            case .replace: "/rules/\(index)"
            case .append(let rule): id == rule.id ? "" : nil
            case .delete, .set: nil
            }
        }
    }

    package struct Locked: Sendable {
        package var domain: DomainRecord
        package var app: AppRecord
        package var current: RuleSetRecord
    }

    package struct Output: Sendable {
        package var host: String
        package var set: RuleSetRecord
    }

    package func authorize(_ principal: Principal) throws {
        guard principal.canWrite else { throw ServiceError.forbidden("a read token cannot change rules") }
    }

    package func lock(_ session: DBSession, principal: Principal) async throws -> Locked {
        let domain = try await Lookup.domain(host, session: session, forUpdate: true)
        let app = try await Lookup.visibleApp(appID, principal, session: session)
        return Locked(domain: domain, app: app, current: try await session.ruleSet(domainID: domain.id, app: app))
    }

    package func checkIfMatch(_ locked: Locked) throws {
        try ETag.check(ifMatch, version: locked.current.version)
    }

    package func apply(_ locked: Locked, principal: Principal, session: DBSession) async throws -> Applied<Output> {
        let (domain, app, current) = (locked.domain, locked.app, locked.current)
        let rules = try edit.apply(to: current.rules)
        let manifest = manifestDecides ?? (current.manifestDecides && rules.isEmpty)
        if let problem = try await RuleWriteCheck(maxRulesPerTeam: maxRulesPerTeam).problem(
            session, domain: domain, app: app, before: current.rules, after: rules, manifestDecides: manifest,
            fields: fields
                ?? .init(
                    app: "appID", domain: "host", rules: "/rules",
                    rulePath: { [edit] in edit.bodyField(rules[$0].id, $0).map { $0 + "/~1" } ?? "/rules/\($0)/~1" }))
        {
            throw ServiceError.invalid([problem])
        }
        let version = try await session.saveRuleSet(
            domainID: domain.id, appPK: app.id, rules: rules, manifestDecides: manifest,
            previousVersion: current.version)
        var saved = current
        saved.rules = rules
        saved.version = version
        saved.manifestDecides = manifest
        var applied = Applied(
            output: Output(host: domain.host, set: saved), domains: [domain.id],
            audit: [
                AuditEntry(
                    action: action, entityType: "rules", entityID: "\(domain.host)/\(app.appID)", team: app.teamName,
                    domain: domain.host, appID: app.appID,
                    before: AuditJSON.rules(current.rules, version: current.version, manifest: current.manifestDecides),
                    after: AuditJSON.rules(rules, version: version, manifest: manifest))
            ])
        applied.agreementTeams = [app.teamName]
        return applied
    }

    /// A finding about one of the written rules names its place in the request body.
    package func field(for finding: Finding, output: Output) -> String? {
        let rules = output.set.rules
        guard finding.appID == appID, let ruleID = finding.ruleID,
            let index = rules.firstIndex(where: { $0.id.uuidString.lowercased() == ruleID }),
            let base = edit.bodyField(rules[index].id, index)
        else { return nil }
        return base + JSONPointer(tokens: Array(JSONPointer.tokens(of: finding.path).dropFirst(5))).description
    }
}
