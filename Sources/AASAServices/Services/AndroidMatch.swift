import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import Foundation

/// `POST /v1/match` for Android: each app's decision by assetlinks.json's dynamic rules, with the
/// team and rule behind it, and, for `platform: both`, how the two platforms' answers differ. The
/// edge writes it as the contract's `AndroidMatch`.
package struct AndroidMatch {
    package let decisions: [(packageName: String, decision: AndroidMatcher.Decision, rule: Int?)]
    package let document: AndroidDocument?

    package init(bytes: [UInt8], document: AndroidDocument?, url: String) {
        let parsed =
            document?.document ?? AssetLinksDocument.parse(bytes).document ?? AssetLinksDocument(statements: [])
        self.decisions = bytes.isEmpty ? [] : AndroidMatcher(parsed).decisions(url: url)
        self.document = document
    }

    package var packages: [String] { decisions.map(\.packageName) }
    package var opens: [String] { decisions.filter { $0.decision == .open }.map(\.packageName) }

    /// Nil when the platforms agree: the same team's app opens the URL on both, or none on either.
    package func disagreement(iosOpener: String?, teams: [String: String]) -> String? {
        let androidTeams = Set(opens.compactMap { teams[$0] })
        let iosTeam = iosOpener.flatMap { teams[$0] }
        switch (iosOpener, opens.isEmpty) {
        case (nil, true): return nil
        case (let app?, true): return "iOS opens it in \(app)\(Self.team(iosTeam)); on Android no app opens it"
        case (nil, false): return "on iOS no app opens it; Android opens it in \(opens.joined(separator: ", "))"
        case (let app?, false):
            if let iosTeam, androidTeams == [iosTeam] { return nil }
            return
                """
                iOS opens it in \(app)\(Self.team(iosTeam)); Android in \
                \(opens.map { $0 + Self.team(teams[$0]) }.joined(separator: ", "))
                """
        }
    }

    private static func team(_ name: String?) -> String { name.map { " (team \($0))" } ?? "" }
}
