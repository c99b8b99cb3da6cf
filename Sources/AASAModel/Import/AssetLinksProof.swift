/// Whether a registry's rendering of an imported assetlinks.json means what the file meant:
/// `AssetLinksDiff` sees no change (the same packages, relations, fingerprints and dynamic rules in
/// order), and every package decides every URL derived from both files' rules (`ExampleURLs`) as
/// the file did, by the device's own matching (`AndroidMatcher`). Differences of form only (key
/// order, one statement for a package the file split in two, white space) are allowed.
public struct AssetLinksProof: Sendable {
    public typealias Mismatch = AndroidDecisionChanges.Change

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
        let changes = AndroidDecisionChanges(from: original, to: rendered, host: host, urls: extra, limit: limit)
        urlsChecked = changes.urlsChecked
        mismatches = changes.changes
    }
}
