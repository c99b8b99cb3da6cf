import AASAKernel
import AASAModel
import Foundation

/// Protected paths in assetlinks.json. Each Android app decides alone (Android may offer several
/// apps for a URL), so each app's dynamic rules are checked as a one-app document with the same
/// automata as the AASA's (`ProtectedPaths`). Reading: Android's `*` stops at the next pattern
/// character, so it matches a subset of what the automaton's `*` matches; but a `.` in an Android
/// glob matches any character (warned as `L063`), which the automaton reads as a dot, so such a
/// rule may open more on a device than the check sees. An exclude with a `*` followed by a
/// literal (`L062`) may hide less on Android than the check assumes.
package enum AndroidProtectedPaths {
    package struct Found: Sendable {
        package var opening: ProtectedPathOpening
        package var team: String
        package var ruleID: String?
    }

    /// One app's dynamic rules as a protected-path check sees them.
    package struct AppRules: Sendable {
        package var appID: String
        package var team: String
        /// The stored rules' IDs, in order (empty for old bytes, which have none).
        package var ruleIDs: [UUID]
        package var components: [JSONValue]
    }

    /// The rendered file's apps, with their teams and rule IDs.
    package static func openings(_ android: AndroidDocument, patterns: [String], host: String) -> (
        openings: [Found], complete: Bool
    ) {
        let apps = android.entries.enumerated().compactMap { i, entry -> AppRules? in
            guard !entry.ruleIDs.isEmpty, android.document.statements.indices.contains(i),
                let components = android.document.statements[i].statement.dynamicComponents
            else { return nil }
            return AppRules(appID: entry.appID, team: entry.team, ruleIDs: entry.ruleIDs, components: components)
        }
        return openings(apps, patterns: patterns, host: host)
    }

    /// A file as it stands (an assetlinks.json rollback's old revision), each app named with its
    /// team today (`teams`: package → team).
    package static func openings(
        _ document: AssetLinksDocument, teams: [String: String], patterns: [String], host: String
    ) -> (openings: [Found], complete: Bool) {
        let apps = document.statements.compactMap { _, statement -> AppRules? in
            guard case .androidApp(let package, _) = statement.target, let components = statement.dynamicComponents
            else { return nil }
            return AppRules(appID: package, team: teams[package] ?? "?", ruleIDs: [], components: components)
        }
        return openings(apps, patterns: patterns, host: host)
    }

    /// The packages a file's statements name.
    package static func packages(_ document: AssetLinksDocument) -> [String] {
        document.statements.compactMap { _, statement in
            if case .androidApp(let package, _) = statement.target { package } else { nil }
        }
    }

    package static func openings(_ apps: [AppRules], patterns: [String], host: String) -> (
        openings: [Found], complete: Bool
    ) {
        var found: [Found] = []
        var complete = true
        for app in apps {
            // The rules in the AASA's syntax: Android's keys are a subset, `comments` aside.
            let rules: [JSONValue] = app.components.map { c in
                guard var o = c.objectValue else { return c }
                o.members.removeAll { $0.key == "comments" }
                return .object(o)
            }
            let root: JSONValue = .object([
                "applinks": .object([
                    "details": .array([
                        .object(["appIDs": .array([.string(app.appID)]), "components": .array(rules)])
                    ])
                ])
            ])
            guard let document = AASAParser.read(root).document else { continue }
            let (openings, done) = ProtectedPaths.openings(in: document, patterns: patterns, host: host)
            complete = complete && done
            found += openings.map { o in
                Found(
                    opening: o, team: app.team,
                    ruleID: app.ruleIDs.indices.contains(o.rule.index)
                        ? app.ruleIDs[o.rule.index].uuidString.lowercased() : nil)
            }
        }
        return (found, complete)
    }

    package static func describe(_ found: Found) -> JSONValue {
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
