import AASAKernel
import AASAModel
import AASAStore
import Foundation

/// A domain's assetlinks.json as its stored state renders it, beside the AASA of `DomainDocument`:
/// one statement per Android app (in the domain's app order) with
/// - `handle_all_urls` and the app's rules as `dynamic_app_link_components`, when it has
///   `applinks` and rules on the domain, or `handle_all_urls` alone when its rule set leaves the
///   decision to its manifest;
/// - `get_login_creds`, when it has `webcredentials` and its team's grant gives that service.
/// Every finding (AssetLinksValidator's `L…`, and `A…` for a rule with no Android form) is traced
/// back to its team, app and rule.
package struct AndroidDocument: Sendable {
    package struct Entry: Sendable {
        package var appID: String
        package var team: String
        /// Empty for a statement without dynamic rules.
        package var ruleIDs: [UUID]
        /// The app whose rule list these are: the app itself, or the iOS app it follows.
        package var rulesOf: String
    }

    /// Codes of rules that have no Android form (beside AssetLinksValidator's `L…`).
    package static let cannotExpress = "A001"
    package static let defaultsIgnored = "A002"

    package let document: AssetLinksDocument
    package let bytes: [UInt8]
    /// `statements[i]` speaks for `entries[i]`.
    package let entries: [Entry]
    package let errors: [Finding]
    package let warnings: [Finding]
    /// The compiled document, for matching.
    package let matcher: AndroidMatcher

    /// Whether the domain has anything for Android (no statement and nothing published: no file).
    package var isEmpty: Bool { entries.isEmpty }

    package init(_ snapshot: DomainSnapshot, order: [String]) {
        let android = snapshot.apps.filter { $0.platform == .android }
        let builds = snapshot.environmentBuilds
        let ruleSets = Dictionary(snapshot.ruleSets.map { ($0.appID, $0) }, uniquingKeysWith: { a, _ in a })
        let grantedServices = Dictionary(
            snapshot.grants.map { ($0.teamID, Set($0.services)) }, uniquingKeysWith: { $0.union($1) })
        let rank = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        let ordered = android.sorted { (rank[$0.appID] ?? Int.max, $0.appID) < (rank[$1.appID] ?? Int.max, $1.appID) }

        var statements: [AssetLinksDocument.Statement] = []
        var entries: [Entry] = []
        var errors: [Finding] = []
        var warnings: [Finding] = []
        for app in ordered {
            // One rule list for both platforms: an app that follows an iOS app renders that app's rules.
            let rulesOf = app.rulesFrom ?? app.appID
            let rules = app.services.contains(.applinks) ? ruleSets[rulesOf]?.rules ?? [] : []
            // A statement with no dynamic rules, its manifest deciding (the app's own set says so).
            let manifestDecides =
                app.services.contains(.applinks) && app.rulesFrom == nil && ruleSets[app.appID]?.manifestDecides == true
            var relations: [String] = []
            if !rules.isEmpty || manifestDecides { relations.append(AssetLinksDocument.handleAllURLs) }
            if app.services.contains(.webcredentials), grantedServices[app.teamID]?.contains(.webcredentials) == true {
                relations.append(AssetLinksDocument.getLoginCreds)
            }
            guard !relations.isEmpty else { continue }
            // An app with a build for the domain's environment is named as that build, with its keys.
            let build = builds[app.appID]
            let index = statements.count
            var components: [JSONValue] = []
            for (j, rule) in rules.enumerated() {
                let (component, problems) = AndroidRuleForm.convert(rule.component)
                components.append(component)
                let defaults = AndroidRuleForm.defaultsProblems(
                    rule.component, caseSensitive: snapshot.domain.defaults.caseSensitive,
                    percentEncoded: snapshot.domain.defaults.percentEncoded)
                for problem in problems + defaults {
                    // A followed rule is named by its own app (the write names it), the Android app in the message.
                    let message =
                        rulesOf == app.appID
                        ? problem.message : "\(problem.message) (for \(app.appID), which follows \(rulesOf)'s rules)"
                    let finding = Finding(
                        code: problem.isError ? Self.cannotExpress : Self.defaultsIgnored,
                        path: (Self.rulePointer(index, j) / problem.key).description,
                        message: message, team: app.teamName, appID: rulesOf,
                        ruleID: rule.id.uuidString.lowercased())
                    if problem.isError { errors.append(finding) } else { warnings.append(finding) }
                }
            }
            statements.append(
                .init(
                    relations: relations,
                    target: .androidApp(
                        packageName: build?.identity ?? app.appID,
                        fingerprints: build.map { $0.fingerprints.map(\.sha256) } ?? app.fingerprints),
                    dynamicComponents: rules.isEmpty ? nil : components))
            entries.append(Entry(appID: app.appID, team: app.teamName, ruleIDs: rules.map(\.id), rulesOf: rulesOf))
            if let facts = snapshot.androidKeys {
                let keys: [(sha256: String, label: String?)] =
                    build.map { $0.fingerprints.map { ($0.sha256, $0.label) } }
                    ?? app.fingerprints.map { ($0, app.keyLabels[$0]) }
                warnings += AndroidKeyWarnings.findings(
                    package: build?.identity ?? app.appID, keys: keys, isBuild: build != nil, facts: facts,
                    pointer: JSONPointer(tokens: [String(index), "target", "sha256_cert_fingerprints"]),
                    team: app.teamName, appID: app.appID)
            }
        }
        let document = AssetLinksDocument(statements: statements)
        let bytes = document.rendered()
        self.document = document
        self.bytes = bytes
        self.entries = entries
        self.matcher = AndroidMatcher(document)
        // The document in hand is what the bytes say: validated as it is, not parsed again.
        for diagnostic in AssetLinksValidator.size(bytes.count) + AssetLinksValidator.validate(document.root) {
            var finding = Finding(
                code: diagnostic.code.rawValue, path: diagnostic.path.description, message: diagnostic.message)
            if let (entry, ruleIndex) = Self.locate(diagnostic.path, entries: entries) {
                finding.team = entry.team
                finding.appID = ruleIndex == nil ? entry.appID : entry.rulesOf
                finding.ruleID = ruleIndex.map { entry.ruleIDs[$0].uuidString.lowercased() }
            }
            if diagnostic.severity == .error { errors.append(finding) } else { warnings.append(finding) }
        }
        self.errors = errors
        self.warnings = warnings
    }

    /// `/i/relation_extensions/…handle_all_urls/dynamic_app_link_components/j`: five tokens, as an
    /// AASA rule's `/applinks/details/i/components/j`, so a request field is found the same way.
    package static func rulePointer(_ statement: Int, _ rule: Int) -> JSONPointer {
        JSONPointer(tokens: [
            String(statement), "relation_extensions", AssetLinksDocument.handleAllURLs,
            "dynamic_app_link_components", String(rule),
        ])
    }

    package static func locate(_ pointer: JSONPointer, entries: [Entry]) -> (entry: Entry, ruleIndex: Int?)? {
        let t = pointer.tokens
        guard let first = t.first, let i = Int(first), entries.indices.contains(i) else { return nil }
        let entry = entries[i]
        guard t.count >= 5, t[3] == "dynamic_app_link_components", let j = Int(t[4]), entry.ruleIDs.indices.contains(j)
        else { return (entry, nil) }
        return (entry, j)
    }
}
