import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation

extension APIImplementation {
    func getRules(_ input: Operations.GetRules.Input) async throws -> Operations.GetRules.Output {
        let principal = try principal()
        let (host, set) = try await reads(principal).rules(input.path.host, appID: input.path.appID)
        return .ok(
            .init(headers: .init(eTag: ETag.of(set.version)), body: .json(Self.ruleSet(set, host: host, warnings: []))))
    }

    func putRules(_ input: Operations.PutRules.Input) async throws -> Operations.PutRules.Output {
        let body =
            switch input.body {
            case .json(let body): body
            }
        var seen = Set<UUID>()
        let rules = try body.rules.enumerated().map { i, rule -> StoredRule in
            var id = UUID()
            if let given = rule.id {
                guard let parsed = UUIDText.parse(given) else {
                    throw ServiceError.invalid(field: "/rules/\(i)/id", rule: "uuid", "a rule ID is a UUID")
                }
                id = parsed
            }
            guard seen.insert(id).inserted else {
                throw ServiceError.invalid(
                    field: "/rules/\(i)/id", rule: "unique", "two rules have the ID \(id.uuidString.lowercased())")
            }
            return StoredRule(id: id, component: try rule.component(field: "/rules/\(i)"))
        }
        var replace = ruleChange(
            input.path.host, input.path.appID, input.headers.ifMatch, "rules.replace", .replace(rules))
        // A whole replacement says whether the manifest decides (absent: it does not).
        replace.manifestDecides = body.manifestDecides ?? false
        let changed = try await change(replace)
        return .ok(.init(headers: .init(eTag: ETag.of(changed.output.set.version)), body: .json(Self.ruleSet(changed))))
    }

    func appendRule(_ input: Operations.AppendRule.Input) async throws -> Operations.AppendRule.Output {
        let body =
            switch input.body {
            case .json(let body): body
            }
        let rule = StoredRule(id: UUID(), component: try body.component(field: ""))
        let changed = try await change(
            ruleChange(input.path.host, input.path.appID, input.headers.ifMatch, "rules.append", .append(rule)))
        return .created(
            .init(headers: .init(eTag: ETag.of(changed.output.set.version)), body: .json(Self.ruleSet(changed))))
    }

    func deleteRule(_ input: Operations.DeleteRule.Input) async throws -> Operations.DeleteRule.Output {
        let id = try Names.uuid(input.path.ruleID, what: "rule")
        let changed = try await change(
            ruleChange(input.path.host, input.path.appID, input.headers.ifMatch, "rules.delete", .delete(id)))
        return .ok(.init(headers: .init(eTag: ETag.of(changed.output.set.version)), body: .json(Self.ruleSet(changed))))
    }

    private func ruleChange(
        _ host: String, _ appID: String, _ ifMatch: String?, _ action: String, _ edit: RuleSetChange.Edit
    ) -> RuleSetChange {
        RuleSetChange(
            host: host, appID: appID, ifMatch: ifMatch, action: action, maxRulesPerTeam: maxRulesPerTeamPerDomain,
            edit: edit)
    }

    static func ruleSet(_ changed: Changed<RuleSetChange.Output>) -> Components.Schemas.RuleSet {
        ruleSet(changed.output.set, host: changed.output.host, warnings: changed.warnings)
    }

    static func ruleSet(_ set: RuleSetRecord, host: String, warnings: [Finding]) -> Components.Schemas.RuleSet {
        .init(
            host: host, appID: set.appID, team: set.teamName, rules: set.rules.map(Components.Schemas.Rule.init),
            version: set.version, manifestDecides: set.manifestDecides ? true : nil,
            warnings: warnings.map(Components.Schemas.Finding.init))
    }
}
