import AASAKernel
import AASAModel
import AASAStore
import Foundation

/// A domain's apple-app-site-association as its stored state renders it: one `details` entry per
/// app that has rules (in the domain's app order), the domain's defaults and substitution
/// variables, and the other services' app lists (apps of teams holding a grant on the domain).
/// Everything AASAModel says about it is kept, with each diagnostic traced back to its rule.
package struct DomainDocument: Sendable {
    package struct Entry: Sendable {
        package var appID: String
        package var team: String
        package var ruleIDs: [UUID]

        package init(appID: String, team: String, ruleIDs: [UUID]) {
            self.appID = appID
            self.team = team
            self.ruleIDs = ruleIDs
        }
    }

    /// The document as the stored state assembles it, before AASAModel has read it: cheap.
    package struct Draft: Sendable {
        package let host: String
        package let root: JSONValue
        /// `details[i]` speaks for `entries[i]`.
        package let entries: [Entry]
        /// Every app on the domain in the order Apple will consult them.
        package let order: [String]
        /// Apps (by their own IDs) listed for the other services.
        package let serviceListed: Set<String>
    }

    package let host: String
    package let document: AASADocument
    package let bytes: [UInt8]
    package let diagnostics: [Diagnostic]
    /// Shadowed and overlapping rules (nil for a document without `details`).
    package let analysis: RuleAnalysis?
    /// `details[i]` speaks for `entries[i]`.
    package let entries: [Entry]
    /// Every app on the domain in the order Apple will consult them.
    package let order: [String]
    /// The document compiled for matching.
    package let matcher: AASAMatcher
    /// The domain's assetlinks.json, rendered from the same state (its Android apps).
    package let android: AndroidDocument
    /// Every app either file names, by its own ID (the files name its build where it has one).
    package let named: Set<String>
    /// The state it was rendered from (for `platformWarnings`).
    package let snapshot: DomainSnapshot
    /// Whose rules `platformWarnings` compares, and whose apps' ungranted services are reported:
    /// the teams a change touched; nil for every team.
    package var agreementScope: Set<String>?
    /// Where a team's rules open its app on one platform and not the other (`PlatformAgreement`),
    /// for the teams in `agreementScope`: computed when asked, since it asks both files about
    /// every URL derived from each team's patterns.
    package var platformWarnings: [Finding] {
        PlatformAgreement.findings(snapshot, ios: matcher, android: android.matcher, teams: agreementScope)
    }

    package var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }
    package var warnings: [Diagnostic] { diagnostics.filter { $0.severity == .warning } }
    /// Both files' warnings, traced to their rules.
    package var warningFindings: [Finding] {
        warnings.map(finding) + android.warnings + platformWarnings
            + ServiceGrants.findings(snapshot).filter { agreementScope?.contains($0.team ?? "") ?? true }
    }

    /// Renders and validates the domain's state. The validation (the rule analysis above all) runs
    /// off the concurrency pool and stops if the request is cancelled; a state rendered before
    /// with the same content is answered from `ValidatedRenders` without analysing again.
    package static func render(_ snapshot: DomainSnapshot) async throws -> DomainDocument {
        let draft = Draft(snapshot)
        let validated = try await ValidatedRenders.shared.validated(draft.root, host: draft.host)
        let android = AndroidDocument(snapshot, order: snapshot.domain.appOrder)
        return DomainDocument(draft: draft, validated: validated, android: android, snapshot: snapshot)
    }

    /// Rendered without AASAModel's validation: for the benchmark that measures what validation costs.
    package static func unvalidated(_ snapshot: DomainSnapshot) -> DomainDocument {
        let draft = Draft(snapshot)
        let document = AASAParser.read(draft.root).document ?? AASADocument()
        return DomainDocument(
            draft: draft,
            validated: .init(
                document: document, bytes: AASARenderer.render(document), diagnostics: [], analysis: nil,
                matcher: AASAMatcher(document)),
            android: AndroidDocument(snapshot, order: snapshot.domain.appOrder), snapshot: snapshot, agreementScope: [])
    }

    private init(
        draft: Draft, validated: ValidatedRenders.Render, android: AndroidDocument, snapshot: DomainSnapshot,
        agreementScope: Set<String>? = nil
    ) {
        self.android = android
        self.snapshot = snapshot
        self.agreementScope = agreementScope
        host = draft.host
        entries = draft.entries
        order = draft.order
        named = Set(draft.entries.map(\.appID)).union(draft.serviceListed).union(android.entries.map(\.appID))
        document = validated.document
        bytes = validated.bytes
        diagnostics = validated.diagnostics
        analysis = validated.analysis
        matcher = validated.matcher
    }
    /// Listed apps first (those still present), then the others by app ID.
    package static func effectiveOrder(explicit: [String], present: Set<String>) -> [String] {
        var seen = Set<String>()
        var out = explicit.filter { present.contains($0) && seen.insert($0).inserted }
        out += present.subtracting(seen).sorted()
        return out
    }

    /// The app and rule a document pointer is about (`/applinks/details/N/components/M/…`).
    package func locate(_ pointer: JSONPointer) -> (entry: Entry, ruleIndex: Int?)? {
        let t = pointer.tokens
        guard t.count >= 3, t[0] == "applinks", t[1] == "details", let n = Int(t[2]), entries.indices.contains(n) else {
            return nil
        }
        let entry = entries[n]
        guard t.count >= 5, t[3] == "components", let m = Int(t[4]), entry.ruleIDs.indices.contains(m) else {
            return (entry, nil)
        }
        return (entry, m)
    }

    package func finding(_ diagnostic: Diagnostic) -> Finding {
        var finding = Finding(
            code: diagnostic.code.rawValue, path: diagnostic.path.description, message: diagnostic.message)
        if let (entry, ruleIndex) = locate(diagnostic.path) {
            finding.team = entry.team
            finding.appID = entry.appID
            finding.ruleID = ruleIndex.map { entry.ruleIDs[$0].uuidString.lowercased() }
        }
        return finding
    }

    /// A rule named for an answer: team, app and rule ID when `document` was rendered from stored
    /// rules (nil for old bytes, which only have the pointer), and its pointer.
    package static func ruleReference(_ location: RuleLocation, in document: DomainDocument?) -> JSONValue {
        var out = JSONObject()
        if let document {
            let ref = document.ruleRef(location)
            if let team = ref.team { out.append("team", .string(team)) }
            if let appID = ref.appID { out.append("appID", .string(appID)) }
            if let ruleID = ref.ruleID { out.append("ruleID", .string(ruleID)) }
        }
        out.append("pointer", .string(location.pointer.description))
        return .object(out)
    }

    /// Where a rule sits in the document, named for the API.
    package func ruleRef(_ location: RuleLocation) -> (team: String?, appID: String?, ruleID: String?, path: String) {
        guard entries.indices.contains(location.detailsIndex) else {
            return (nil, nil, nil, location.pointer.description)
        }
        let entry = entries[location.detailsIndex]
        let ruleID =
            entry.ruleIDs.indices.contains(location.index) ? entry.ruleIDs[location.index].uuidString.lowercased() : nil
        return (entry.team, entry.appID, ruleID, location.pointer.description)
    }
}

extension DomainDocument.Draft {
    /// One `details` entry per app that has rules (in the domain's app order), the domain's
    /// defaults and substitution variables, and the other services' app lists (apps of teams
    /// holding a grant on the domain). iOS apps only: Android's are `AndroidDocument`'s.
    package init(_ snapshot: DomainSnapshot) {
        let domain = snapshot.domain
        host = domain.host
        let android = Set(snapshot.apps.filter { $0.platform == .android }.map(\.appID))
        let withRules = snapshot.ruleSets.filter { !$0.rules.isEmpty && !android.contains($0.appID) }
        let ruleSetsByApp = Dictionary(uniqueKeysWithValues: withRules.map { ($0.appID, $0) })
        order = DomainDocument.effectiveOrder(explicit: domain.appOrder, present: Set(withRules.map(\.appID)))

        // An app with a build for the domain's environment is named as that build; its rules are its own.
        let builds = snapshot.environmentBuilds
        func identity(_ appID: String) -> String { builds[appID]?.identity ?? appID }
        var entries: [DomainDocument.Entry] = []
        var details: [JSONValue] = []
        for appID in order {
            guard let set = ruleSetsByApp[appID] else { continue }
            entries.append(.init(appID: appID, team: set.teamName, ruleIDs: set.rules.map(\.id)))
            details.append(
                .object([
                    "appIDs": .array([.string(identity(appID))]), "components": .array(set.rules.map(\.component)),
                ]))
        }
        self.entries = entries
        var applinks = JSONObject()
        if !domain.defaults.isEmpty {
            var defaults = JSONObject()
            if let c = domain.defaults.caseSensitive { defaults.append("caseSensitive", .bool(c)) }
            if let p = domain.defaults.percentEncoded { defaults.append("percentEncoded", .bool(p)) }
            applinks.append("defaults", .object(defaults))
        }
        if !domain.substitutionVariables.isEmpty {
            applinks.append(
                "substitutionVariables",
                .object(
                    JSONObject(
                        domain.substitutionVariables.map {
                            JSONMember($0.name, .array($0.values.map(JSONValue.string)))
                        })))
        }
        applinks.append("details", .array(details))
        var root: JSONObject = ["applinks": .object(applinks)]

        // Other services: apps that enabled them, of teams whose grant gives that service, in the
        // domain's order.
        let grantedTeams = Set(snapshot.grants.map(\.teamID))
        let grantedServices = Dictionary(
            snapshot.grants.map { ($0.teamID, Set($0.services)) }, uniquingKeysWith: { $0.union($1) })
        let rank = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
        let serviceApps = snapshot.apps.filter { grantedTeams.contains($0.teamID) && $0.platform == .ios }
            .sorted { (rank[$0.appID] ?? Int.max, $0.appID) < (rank[$1.appID] ?? Int.max, $1.appID) }
        var serviceListed = Set<String>()
        for service in [AppService.webcredentials, .appclips, .activitycontinuation] {
            let ids = serviceApps.filter {
                $0.services.contains(service) && grantedServices[$0.teamID]?.contains(service) == true
            }.map(\.appID)
            serviceListed.formUnion(ids)
            if !ids.isEmpty {
                root.append(service.rawValue, .object(["apps": .array(ids.map { .string(identity($0)) })]))
            }
        }
        self.root = .object(root)
        self.serviceListed = serviceListed
    }
}
