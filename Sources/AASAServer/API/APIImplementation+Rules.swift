import AASAAPI
import AASAModel
import AASAStore
import Foundation

extension APIImplementation {
    func getRules(_ input: Operations.GetRules.Input) async throws -> Operations.GetRules.Output {
        let principal = try principal()
        let (domain, set) = try await read { session in
            let domain = try await lookupDomain(input.path.host, session: session)
            let app = try await visibleApp(input.path.appID, principal, session: session)
            return (domain, try await session.ruleSet(domainID: domain.id, app: app))
        }
        return .ok(.init(headers: .init(eTag: ETag.of(set.version)), body: .json(Self.ruleSet(set, host: domain.host, warnings: []))))
    }

    func putRules(_ input: Operations.PutRules.Input) async throws -> Operations.PutRules.Output {
        guard case .json(let body) = input.body else { throw APIProblem.badRequest("expected application/json") }
        var seen = Set<UUID>()
        let rules = try body.rules.enumerated().map { i, rule -> StoredRule in
            var id = UUID()
            if let given = rule.id {
                guard let parsed = UUID(uuidString: given) else {
                    throw APIProblem.invalid(field: "/rules/\(i)/id", rule: "uuid", "a rule ID is a UUID")
                }
                id = parsed
            }
            guard seen.insert(id).inserted else {
                throw APIProblem.invalid(field: "/rules/\(i)/id", rule: "unique", "two rules have the ID \(id.uuidString.lowercased())")
            }
            return StoredRule(id: id, component: try rule.component(field: "/rules/\(i)"))
        }
        let (set, host, warnings) = try await changeRules(host: input.path.host, appID: input.path.appID,
                                                          ifMatch: input.headers.ifMatch, action: "rules.replace",
                                                          bodyField: { _, index in "/rules/\(index)" }) { _ in rules }
        await autoPublishIfEnabled(host, after: "rules.replace")
        return .ok(.init(headers: .init(eTag: ETag.of(set.version)), body: .json(Self.ruleSet(set, host: host, warnings: warnings))))
    }

    func appendRule(_ input: Operations.AppendRule.Input) async throws -> Operations.AppendRule.Output {
        guard case .json(let body) = input.body else { throw APIProblem.badRequest("expected application/json") }
        let rule = StoredRule(id: UUID(), component: try body.component(field: ""))
        let (set, host, warnings) = try await changeRules(host: input.path.host, appID: input.path.appID,
                                                          ifMatch: input.headers.ifMatch, action: "rules.append",
                                                          bodyField: { id, _ in id == rule.id ? "" : nil }) { current in
            current + [rule]
        }
        await autoPublishIfEnabled(host, after: "rules.append")
        return .created(.init(headers: .init(eTag: ETag.of(set.version)), body: .json(Self.ruleSet(set, host: host, warnings: warnings))))
    }

    func deleteRule(_ input: Operations.DeleteRule.Input) async throws -> Operations.DeleteRule.Output {
        let id = try Names.uuid(input.path.ruleID, what: "rule")
        let (set, host, warnings) = try await changeRules(host: input.path.host, appID: input.path.appID,
                                                          ifMatch: input.headers.ifMatch, action: "rules.delete",
                                                          bodyField: { _, _ in nil }) { current in
            guard current.contains(where: { $0.id == id }) else { throw APIProblem.notFound("no rule \(input.path.ruleID)") }
            return current.filter { $0.id != id }
        }
        await autoPublishIfEnabled(host, after: "rules.delete")
        return .ok(.init(headers: .init(eTag: ETag.of(set.version)), body: .json(Self.ruleSet(set, host: host, warnings: warnings))))
    }

    /// Every rule write: lock the domain, check who may write and where, apply `change`, validate
    /// the whole domain document, store with an audit event, all in one transaction.
    /// - Parameter bodyField: the request-body pointer of a rule (by ID and index), if it came from the body.
    private func changeRules(host: String, appID: String, ifMatch: String?, action: String,
                             bodyField: @escaping @Sendable (UUID, Int) -> String?,
                             change: @escaping @Sendable ([StoredRule]) throws -> [StoredRule]) async throws -> (RuleSetRecord, String, [Finding]) {
        let principal = try principal()
        return try await write { session in
            let domain = try await lookupDomain(host, session: session, forUpdate: true)
            let app = try await visibleApp(appID, principal, session: session)
            guard principal.canWrite else { throw APIProblem.forbidden("a read token cannot change rules") }
            let current = try await session.ruleSet(domainID: domain.id, app: app)
            try ETag.check(ifMatch, version: current.version)
            guard app.services.contains(.applinks) else {
                throw APIProblem.invalid(field: "appID", rule: "applinks-disabled", "\(app.appID) does not have the applinks service enabled")
            }
            let rules = try change(current.rules)
            guard let grant = try await session.grant(domainID: domain.id, teamID: app.teamID) else {
                throw APIProblem.forbidden("team \(app.teamName) has no grant on \(domain.host)")
            }
            if let index = Self.firstRuleOutside(rules, prefixes: grant.pathPrefixes, defaults: domain.defaults) {
                let path = rules[index].component.objectValue?["/"]?.stringValue.map { "`\($0)`" } ?? "a rule without `/` (every path)"
                throw APIProblem.forbidden("\(path) is outside team \(app.teamName)'s grant on \(domain.host) (\(grant.pathPrefixes.joined(separator: ", ")))")
            }
            try await checkRuleCap(session, domain: domain, team: app.teamName, appID: app.appID,
                                   before: current.rules.count, after: rules.count, field: "/rules")
            let version = try await session.saveRuleSet(domainID: domain.id, appPK: app.id, rules: rules, previousVersion: current.version)
            let rendered = try await DomainGate.check(session, domain: domain) { finding in
                guard finding.appID == app.appID, let ruleID = finding.ruleID,
                      let index = rules.firstIndex(where: { $0.id.uuidString.lowercased() == ruleID }),
                      let base = bodyField(rules[index].id, index) else { return nil }
                let rest = JSONPointer(tokens: Array(Self.pointerTokens(finding.path).dropFirst(5))).description
                return base + rest
            }
            try await audit(session, principal, action: action, entityType: "rules", entityID: "\(domain.host)/\(app.appID)",
                            team: app.teamName, domain: domain.host, appID: app.appID,
                            before: AuditJSON.rules(current.rules, version: current.version),
                            after: AuditJSON.rules(rules, version: version))
            var saved = current
            saved.rules = rules
            saved.version = version
            return (saved, domain.host, rendered.warnings.map(rendered.finding))
        }
    }

    /// A change may not take a team above `maxRulesPerTeamPerDomain` rules on one domain (a team
    /// above it, after the cap was lowered, may still shrink).
    func checkRuleCap(_ session: DBSession, domain: DomainRecord, team: String, appID: String,
                      before: Int, after: Int, field: String) async throws {
        guard after > before else { return }
        let others = try await session.listRuleSets(domainID: domain.id)
            .filter { $0.teamName == team && $0.appID != appID }.reduce(0) { $0 + $1.rules.count }
        guard others + after > maxRulesPerTeamPerDomain else { return }
        throw APIProblem.invalid(field: field, rule: "max-rules",
            "team \(team) would have \(others + after) rules on \(domain.host); a team may have at most \(maxRulesPerTeamPerDomain) on one domain")
    }

    static func pointerTokens(_ pointer: String) -> [String] {
        pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
    }

    static func ruleSet(_ set: RuleSetRecord, host: String, warnings: [Finding]) -> Components.Schemas.RuleSet {
        .init(host: host, appID: set.appID, team: set.teamName, rules: set.rules.map(Components.Schemas.Rule.init),
              version: set.version, warnings: warnings.map(Components.Schemas.Finding.init))
    }
}
