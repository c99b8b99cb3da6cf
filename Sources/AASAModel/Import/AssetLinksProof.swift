/// Whether a registry's rendering of an imported assetlinks.json means what the file meant:
/// `AssetLinksDiff` sees no change (the same packages, relations, fingerprints and dynamic rules in
/// order), and every package decides every URL derived from both files' rules (`ExampleURLs`) as
/// the file did, by the device's own matching (`AndroidMatcher`). Differences of form only (key
/// order, one statement for a package the file split in two, white space) are allowed.
public struct AssetLinksProof: Sendable {
    public struct Mismatch: Sendable, Equatable {
        public var url: String
        public var packageName: String
        public var before: AndroidMatcher.Decision
        public var after: AndroidMatcher.Decision
    }

    public var urlsChecked: Int
    public var mismatches: [Mismatch]
    public var diff: AssetLinksDiff

    public var holds: Bool { mismatches.isEmpty && diff.isEmpty }

    /// `urls`: more URLs to check (the AASA's, when both files were imported).
    public init(
        original: AssetLinksDocument, rendered: AssetLinksDocument, host: String, urls extra: [String] = [],
        limit: Int = 5_000
    ) {
        diff = AssetLinksDiff(from: original, to: rendered)
        var urls = ExampleURLs.derive(from: [original, rendered].map(Self.rulesAsAASA), host: host, limit: limit)
        let seen = Set(urls)
        urls += extra.filter { !seen.contains($0) }.prefix(max(0, limit - urls.count))
        urlsChecked = urls.count
        let before = AndroidMatcher(original)
        let after = AndroidMatcher(rendered)
        var mismatches: [Mismatch] = []
        for url in urls {
            let decided = Dictionary(
                after.decisions(url: url).map { ($0.packageName, $0.decision) }, uniquingKeysWith: { a, _ in a })
            for (package, decision, _) in before.decisions(url: url) where decided[package] != decision {
                mismatches.append(
                    Mismatch(url: url, packageName: package, before: decision, after: decided[package] ?? .noMatch))
            }
        }
        self.mismatches = mismatches
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
}
