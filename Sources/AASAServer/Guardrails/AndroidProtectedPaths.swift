import AASAModel
import Foundation

/// Protected paths in assetlinks.json. Each Android app decides alone (Android may offer several
/// apps for a URL), so each app's dynamic rules are checked as a one-app document with the same
/// automata as the AASA's (`ProtectedPaths`). Reading: Android's `*` stops at the first next
/// character, so it matches a subset of what the automaton's `*` matches, and a rule is never
/// missed; an exclude with a `*` followed by a literal (warned as `L062`) may hide less on Android
/// than the check assumes.
enum AndroidProtectedPaths {
    struct Found: Sendable {
        var opening: ProtectedPathOpening
        var team: String
        var ruleID: String?
    }

    static func openings(_ android: AndroidDocument, patterns: [String], host: String) -> (
        openings: [Found], complete: Bool
    ) {
        var found: [Found] = []
        var complete = true
        for (i, entry) in android.entries.enumerated() where !entry.ruleIDs.isEmpty {
            guard android.document.statements.indices.contains(i),
                let components = android.document.statements[i].statement.dynamicComponents
            else { continue }
            // The rules in the AASA's syntax: Android's keys are a subset, `comments` aside.
            let rules: [JSONValue] = components.map { c in
                guard var o = c.objectValue else { return c }
                o.members.removeAll { $0.key == "comments" }
                return .object(o)
            }
            let root: JSONValue = .object([
                "applinks": .object([
                    "details": .array([
                        .object(["appIDs": .array([.string(entry.appID)]), "components": .array(rules)])
                    ])
                ])
            ])
            guard let document = AASAParser.read(root).document else { continue }
            let (openings, done) = ProtectedPaths.openings(in: document, patterns: patterns, host: host)
            complete = complete && done
            found += openings.map { o in
                Found(
                    opening: o, team: entry.team,
                    ruleID: entry.ruleIDs.indices.contains(o.rule.index)
                        ? entry.ruleIDs[o.rule.index].uuidString.lowercased() : nil)
            }
        }
        return (found, complete)
    }

    static func describe(_ found: Found) -> JSONValue {
        let o = found.opening
        var rule: JSONObject = ["team": .string(found.team), "appID": .string(o.appID)]
        if let ruleID = found.ruleID { rule.append("ruleID", .string(ruleID)) }
        return .object([
            "pattern": .string(o.pattern), "url": .string(o.url), "appID": .string(o.appID),
            "platform": .string("android"),
            "rule": .object(rule),
            "message": .string(
                "\(o.url) lies in the protected path \(o.pattern), and the Android app \(o.appID) (team \(found.team)) "
                    + "would open it by its rule \(o.rule.index) in assetlinks.json"),
        ])
    }
}
