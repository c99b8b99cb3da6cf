import AASAKernel
import AASAModel
import AASAStore
import Foundation

/// Who sees which draft (a decision, issue 15): an admin sees the whole draft; a team token sees
/// the published file with its own team's unpublished rules in place, so another team's
/// unpublished rules and comments stay with that team until they are published.
package enum DraftView {
    /// `snapshot` as `principal` may see it: every other team's rules replaced by what the
    /// current revision (`published`, nil when none) holds for that app, and an Android app's own
    /// rules by what the current assetlinks.json revision (`publishedAssetLinks`) holds for its
    /// package (the AASA never names one: without this, another team's published Android rules
    /// vanished from the view, and a diff to the draft showed them removed).
    package static func snapshot(
        _ snapshot: DomainSnapshot, published: [UInt8]?, publishedAssetLinks: [UInt8]? = nil,
        for principal: Principal
    ) -> DomainSnapshot {
        guard !principal.isAdmin else { return snapshot }
        var publishedRules: [String: [JSONValue]] = [:]
        if let publishedAssetLinks, let document = AssetLinksDocument.parse(publishedAssetLinks).document {
            for (_, statement) in document.statements {
                guard case .androidApp(let package, _) = statement.target else { continue }
                publishedRules[package, default: []] += statement.dynamicComponents ?? []
            }
        }
        if let published, case .object(let root)? = try? JSONParser.parse(published).value,
            case .object(let applinks)? = root["applinks"], case .array(let details)? = applinks["details"]
        {
            for case .object(let entry) in details {
                guard case .array(let ids)? = entry["appIDs"], case .array(let components)? = entry["components"] else {
                    continue
                }
                for case .string(let appID) in ids { publishedRules[appID, default: []] += components }
            }
        }
        var view = snapshot
        for (i, set) in view.ruleSets.enumerated() where set.teamName != principal.teamName {
            let drafts = set.rules
            view.ruleSets[i].rules = (publishedRules[set.appID] ?? []).map { component in
                // The stored rule's ID when the published rule is unchanged; otherwise a fresh one.
                StoredRule(id: drafts.first { $0.component == component }?.id ?? UUID(), component: component)
            }
        }
        return view
    }
}
