/// Whether a registry's rendering of an imported file means what the file meant: the same apps in
/// the same order, the same service lists, and for every app the same decision on every URL derived
/// from both documents' rules (`ExampleURLs`), so the same app opens each. What differs in bytes
/// only (key order, `appID` for `appIDs`, components for legacy `paths`, white space) is allowed.
public struct ImportProof: Sendable {
    public struct Mismatch: Sendable, Equatable {
        public var url: String
        public var appID: String
        public var before: Decision
        public var after: Decision
    }

    public var urlsChecked: Int
    public var mismatches: [Mismatch]
    /// The differences `DocumentDiff` sees beyond the decisions (apps, order, services).
    public var appsAdded: [String]
    public var appsRemoved: [String]
    public var appOrderChanged: Bool
    public var serviceChanges: [String]

    public var holds: Bool {
        mismatches.isEmpty && appsAdded.isEmpty && appsRemoved.isEmpty && !appOrderChanged && serviceChanges.isEmpty
    }

    public init(original: AASADocument, rendered: AASADocument, host: String, limit: Int = 5_000) {
        let diff = DocumentDiff(from: original, to: rendered, host: host, maxExamples: 0)
        // An app listed with no rules opens nothing: the registry, which lists an app where it has
        // rules, may leave it out (and the decisions below still compare it).
        appsAdded = diff.appsAdded.filter { Self.hasRules($0, in: rendered) }
        appsRemoved = diff.appsRemoved.filter { Self.hasRules($0, in: original) }
        appOrderChanged = diff.appOrderChanged
        serviceChanges = diff.services.map { change in
            "\(change.service): "
                + (change.added.map { "+\($0)" } + change.removed.map { "-\($0)" }).joined(separator: ", ")
        }
        let originalMatcher = AASAMatcher(original)
        let renderedMatcher = AASAMatcher(rendered)
        let urls = ExampleURLs.derive(from: [original, rendered], host: host, limit: limit)
        urlsChecked = urls.count
        var mismatches: [Mismatch] = []
        for url in urls {
            // One indexed pass per document gives every app's decision (not one scan per app).
            let split = SplitURL(url)
            var after: [String: Decision] = [:]
            for (app, decision) in renderedMatcher.resolve(split, domain: host).decisions {
                after[app] = decision.decision
            }
            for (app, decision) in originalMatcher.resolve(split, domain: host).decisions {
                let b = after[app] ?? .noMatch
                if decision.decision != b {
                    mismatches.append(Mismatch(url: url, appID: app, before: decision.decision, after: b))
                }
            }
        }
        self.mismatches = mismatches
    }

    /// Whether the document gives the app any rule (components, or legacy paths where it has none).
    static func hasRules(_ appID: String, in document: AASADocument) -> Bool {
        (document.applinks?.details ?? []).contains { entry in
            guard entry.effectiveAppIDs.contains(appID) else { return false }
            if let components = entry.components { return !components.isEmpty }
            return !(entry.paths ?? []).isEmpty
        }
    }
}
