/// The URLs whose outcome on Android differs between two assetlinks.json files: every URL derived
/// from both files' dynamic rules (`ExampleURLs`, plus any given), asked of each file by the
/// device's own matching (`AndroidMatcher`), per package. A package the new file drops decides
/// `no_match` there. The import's proof requires none; a revision diff lists them.
public struct AndroidDecisionChanges: Sendable {
    public struct Change: Sendable, Equatable {
        public var url: String
        public var packageName: String
        public var before: AndroidMatcher.Decision
        public var after: AndroidMatcher.Decision
    }

    public var urlsChecked: Int
    public var changes: [Change]

    /// `urls`: more URLs to ask (the AASA's, when both files are at hand); `limit` bounds the URLs
    /// asked, `maxChanges` the changes kept.
    public init(
        from old: AssetLinksDocument, to new: AssetLinksDocument, host: String, urls extra: [String] = [],
        limit: Int = 5_000, maxChanges: Int = .max
    ) {
        var urls = ExampleURLs.derive(from: [old, new].map(Self.rulesAsAASA), host: host, limit: limit)
        let seen = Set(urls)
        urls += extra.filter { !seen.contains($0) }.prefix(max(0, limit - urls.count))
        urlsChecked = urls.count
        let before = AndroidMatcher(old)
        let after = AndroidMatcher(new)
        var changes: [Change] = []
        for url in urls where changes.count < maxChanges {
            let decided = Dictionary(
                after.decisions(url: url).map { ($0.packageName, $0.decision) }, uniquingKeysWith: { a, _ in a })
            let had = Set(before.decisions(url: url).map(\.packageName))
            for (package, decision, _) in before.decisions(url: url) where decided[package] != decision {
                changes.append(
                    Change(url: url, packageName: package, before: decision, after: decided[package] ?? .noMatch))
            }
            // A package only the new file names decides something it did not before.
            for (package, decision) in decided.sorted(by: { $0.key < $1.key })
            where !had.contains(package) && decision != .noMatch {
                changes.append(Change(url: url, packageName: package, before: .noMatch, after: decision))
            }
        }
        self.changes = Array(changes.prefix(maxChanges))
    }

    /// The dynamic rules of a statement list as an AASA's components (the syntax they share), so
    /// `ExampleURLs` derives URLs from them as it does from an AASA's.
    static func rulesAsAASA(_ document: AssetLinksDocument) -> AASADocument {
        let details: [JSONValue] = document.statements.compactMap { _, statement in
            guard let rules = statement.dynamicComponents, !rules.isEmpty else { return nil }
            return .object(["appIDs": .array([.string("ABCDE12345.android")]), "components": .array(rules)])
        }
        let root: JSONValue = .object(["applinks": .object(["details": .array(details)])])
        return AASAParser.read(root).document ?? AASADocument()
    }

    public var jsonValue: JSONValue {
        .array(
            changes.map {
                .object([
                    "url": .string($0.url), "packageName": .string($0.packageName),
                    "before": .string($0.before.rawValue), "after": .string($0.after.rawValue),
                ])
            })
    }

    /// Lines for people, from `jsonValue` (the CLI prints a server's answer the same way).
    public static func textLines(json: JSONValue) -> [String] {
        let changes = json.arrayValue ?? []
        guard !changes.isEmpty else { return [] }
        return ["URLs whose outcome on Android changes:"]
            + changes.compactMap(\.objectValue).map { c in
                let text = { (key: String) in c[key]?.stringValue ?? "?" }
                return "  \(text("url")): \(text("packageName")) \(text("before")) -> \(text("after"))"
            }
    }
}
