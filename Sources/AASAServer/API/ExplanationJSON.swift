import AASAAPI
import AASAModel

/// AASAModel's `Explanation` as the API answers it, rules named by team, app and rule ID when the
/// file was rendered from stored rules.
enum ExplanationJSON {
    static func explanation(_ e: Explanation, document: DomainDocument?, serverHints: [Explanation.Hint]) -> Components.Schemas.Explanation {
        func rule(_ location: RuleLocation, appID: String?, exclude: Bool?, outcome: Explanation.RuleOutcome?) -> Components.Schemas.ExplainedRule {
            let ref = document?.ruleRef(location)
            var out = Components.Schemas.ExplainedRule(pointer: location.pointer.description, appID: appID ?? ref?.appID, team: ref?.team,
                                                      ruleID: ref?.ruleID, exclude: exclude, result: .failed)
            switch outcome {
            case .matched?: out.result = .matched
            case .malformed?: out.result = .malformed
            case .notReached?: out.result = .notReached
            case .failed(let failure)?:
                out.component = failure.component
                out.subject = failure.subject
                out.pattern = failure.pattern
            case nil: out.result = .failed
            }
            return out
        }
        let apps = e.apps.map { trace in
            Components.Schemas.Explanation.AppsPayloadPayload(
                appID: trace.appID, decision: trace.decision == .match ? .match : trace.decision == .exclude ? .exclude : .none,
                rules: trace.rules.map { rule($0.rule, appID: trace.appID, exclude: $0.exclude, outcome: $0.outcome) })
        }
        let closest = e.closest.map { rule($0.rule, appID: $0.appID, exclude: false, outcome: .failed($0.failure)) }
        let hints = (serverHints + e.hints).map { hint in
            Components.Schemas.Explanation.HintsPayloadPayload(
                code: hint.code, message: hint.message, rule: hint.rule.map { rule($0, appID: nil, exclude: nil, outcome: nil) })
        }
        return .init(apps: apps, closest: closest, hints: hints)
    }
}
