import AASAKernel
import AASAModel
import AASAStore
import Synchronization

/// Where one team's rules open its app on one platform and not on the other. The same rules can
/// mean different things on iOS and Android (slashes, an absent `?` item, `*`, case, another team's
/// rule ahead of them on iOS), so on every render the URLs derived from each team's own patterns
/// (`ExampleURLs`) are asked of both compiled files, and each URL where the answers differ is a
/// warning (`A010`) naming the team and the app that does open it. Teams with apps on one
/// platform only are not compared.
package enum PlatformAgreement {
    package static let code = "A010"
    /// Warnings per team: the first few are what a person reads.
    package static let perTeam = 3
    package static let urlsPerTeam = 300

    package struct Answer: Sendable, Equatable {
        package var ios: String?
        package var android: [String]
    }

    /// - Parameter teams: the teams to compare; nil for every team.
    package static func findings(
        _ snapshot: DomainSnapshot, ios: AASAMatcher, android: AndroidMatcher, teams only: Set<String>? = nil
    ) -> [Finding] {
        let platform = Dictionary(snapshot.apps.map { ($0.appID, $0.platform) }, uniquingKeysWith: { a, _ in a })
        let withRules = snapshot.ruleSets.filter { !$0.rules.isEmpty && platform[$0.appID] != nil }
        let teams = Set(withRules.map(\.teamName)).filter { only?.contains($0) ?? true }.sorted()
        var out: [Finding] = []
        for team in teams {
            let sets = withRules.filter { $0.teamName == team }
            let iosApps = Set(sets.filter { platform[$0.appID] == .ios }.map(\.appID))
            // Android apps with rules of their own, or following one of the team's iOS apps.
            let androidApps = Set(sets.filter { platform[$0.appID] == .android }.map(\.appID))
                .union(
                    snapshot.apps.filter { app in
                        app.platform == .android && app.rulesFrom.map(iosApps.contains) == true
                    }.map(\.appID))
            guard !iosApps.isEmpty, !androidApps.isEmpty else { continue }
            var found = 0
            for url in urls(of: sets, host: snapshot.domain.host) where found < perTeam {
                // On every write: only the team's own Android apps are asked, and all of them only
                // when the platforms disagree (for the message).
                let iosOpener = ios.resolve(url: url).appID
                let onIOS = iosOpener.map(iosApps.contains) ?? false
                guard onIOS != android.anyOpens(androidApps, url: url) else { continue }
                let answer = Answer(
                    ios: iosOpener,
                    android: android.decisions(url: url).filter { $0.decision == .open }.map(\.packageName))
                found += 1
                out.append(
                    Finding(
                        code: code, path: "", message: message(url: url, team: team, answer: answer, onIOS: onIOS),
                        team: team, appID: onIOS ? answer.ios : answer.android.first(where: androidApps.contains)))
            }
        }
        return out
    }

    /// The URLs derived from a team's own rule sets, kept by the SHA-256 of their content: a write
    /// changes one team's rules, and the others' URLs are not derived again. A key is 64 bytes
    /// whatever the rules' size; at most 1,024 lists of at most `urlsPerTeam` URLs are kept.
    private static let derived = Mutex<[String: [String]]>([:])

    package static func urls(of sets: [RuleSetRecord], host: String) -> [String] {
        let details: [JSONValue] = sets.map {
            .object(["appIDs": .array([.string($0.appID)]), "components": .array($0.rules.map(\.component))])
        }
        let root: JSONValue = .object(["applinks": .object(["details": .array(details)])])
        let key = Hex.sha256(Array((host + " " + JSONWriter(style: .compact).string(root)).utf8))
        if let hit = derived.withLock({ $0[key] }) { return hit }
        let own = AASAParser.read(root).document ?? AASADocument()
        let urls = ExampleURLs.derive(from: [own], host: host, limit: urlsPerTeam)
        derived.withLock { cache in
            if cache.count >= 1024 { cache.removeAll() }  // bounded: a cold start costs one derivation per team
            cache[key] = urls
        }
        return urls
    }

    package static func message(url: String, team: String, answer: Answer, onIOS: Bool) -> String {
        let iosSide = answer.ios.map { "iOS opens it in \($0)" } ?? "on iOS no app opens it"
        let androidSide =
            answer.android.isEmpty
            ? "on Android no app opens it" : "Android opens it in \(answer.android.joined(separator: ", "))"
        let which = onIOS ? "on iOS but not on Android" : "on Android but not on iOS"
        return "team \(team)'s apps open \(url) \(which): \(iosSide), \(androidSide)"
    }
}
