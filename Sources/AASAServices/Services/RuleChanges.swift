import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// A change to one app's rules on one domain: replace them, append one, or delete one. `edit`
/// makes the new rules from the current ones. The walk of "a team writes a rule" is this file,
/// `DomainChangePipeline` (the steps) and `DomainGate` (the validation).
package struct RuleSetChange: DomainChange {
    package let host: String
    package let appID: String
    package let ifMatch: String?
    package let action: String
    package let maxRulesPerTeam: Int
    package let edit: @Sendable ([StoredRule]) throws -> [StoredRule]
    /// The request-body pointer of a rule the request wrote (by ID and position), if it did.
    package let bodyField: @Sendable (UUID, Int) -> String?
    /// An Android app's statement left to its manifest (no rules); nil keeps what is stored while
    /// the set stays empty (an appended rule replaces it).
    package var manifestDecides: Bool? = nil
    /// Where a refusal points in a composite writer's own body (a manifest's pointers); nil: the
    /// rules API's (`appID`, `host`, `/rules`, each rule by `bodyField`).
    package var fields: RuleWriteCheck.Fields? = nil

    package init(
        host: String, appID: String, ifMatch: String?, action: String, maxRulesPerTeam: Int,
        edit: @escaping @Sendable ([StoredRule]) throws -> [StoredRule],
        bodyField: @escaping @Sendable (UUID, Int) -> String?, manifestDecides: Bool? = nil,
        fields: RuleWriteCheck.Fields? = nil
    ) {
        self.fields = fields
        self.host = host
        self.appID = appID
        self.ifMatch = ifMatch
        self.action = action
        self.maxRulesPerTeam = maxRulesPerTeam
        self.edit = edit
        self.bodyField = bodyField
        self.manifestDecides = manifestDecides
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
        let rules = try edit(current.rules)
        let manifest = manifestDecides ?? (current.manifestDecides && rules.isEmpty)
        if let problem = try await RuleWriteCheck(maxRulesPerTeam: maxRulesPerTeam).problem(
            session, domain: domain, app: app, before: current.rules, after: rules, manifestDecides: manifest,
            fields: fields
                ?? .init(
                    app: "appID", domain: "host", rules: "/rules",
                    rulePath: { [bodyField] in bodyField(rules[$0].id, $0).map { $0 + "/~1" } ?? "/rules/\($0)/~1" }))
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
            let base = bodyField(rules[index].id, index)
        else { return nil }
        return base + JSONPointer(tokens: Array(JSONPointer.tokens(of: finding.path).dropFirst(5))).description
    }
}
