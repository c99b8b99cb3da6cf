import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import Foundation

extension AndroidMatch {
    /// The contract's `AndroidMatch`: each package's decision, its team and the rule behind it.
    func json(revision: Int?, teams: [String: String]) -> Components.Schemas.AndroidMatch {
        .init(
            revision: revision, opens: opens,
            decisions: decisions.map { d in
                let ruleID = d.rule.flatMap { index in
                    document?.entries.first { $0.appID == d.packageName }.flatMap {
                        $0.ruleIDs.indices.contains(index) ? $0.ruleIDs[index] : nil
                    }
                }
                return .init(
                    packageName: d.packageName, team: teams[d.packageName],
                    decision: .init(rawValue: d.decision.rawValue) ?? .noMatch, ruleIndex: d.rule,
                    ruleID: ruleID?.uuidString.lowercased())
            })
    }
}
