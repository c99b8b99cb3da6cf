import AASAKernel
import AASAModel
import Metrics

/// Published files compiled for matching, kept by their bytes. A revision's bytes never change,
/// yet every golden-URL check, published match and publish policy parsed and compiled the current
/// revision again: the console's overview spent more on that than on its own page. Keyed by the
/// content, an entry can never be stale.
package enum PublishedMatchers {
    private static let ios = ContentCache<AASAMatcher>(maxEntries: 256, maxBytes: 64 << 20)
    private static let android = ContentCache<AndroidMatcher>(maxEntries: 256, maxBytes: 16 << 20)

    /// The AASA file compiled; throws as `AASADocument(json:)` does when the bytes are not one.
    package static func aasa(_ bytes: [UInt8]) throws -> AASAMatcher {
        let key = ContentCache<AASAMatcher>.key([bytes])
        if let hit = ios[key] { return counted(hit, "hit") }
        let matcher = AASAMatcher(try AASADocument(json: bytes))
        // A compiled document takes several times its file's bytes.
        ios.remember(matcher, bytes: 4 * bytes.count, key: key)
        return counted(matcher, "miss")
    }

    /// The AASA file compiled, or the empty document's matcher when the bytes are not one.
    package static func aasaOrEmpty(_ bytes: [UInt8]) -> AASAMatcher {
        (try? aasa(bytes)) ?? AASAMatcher(AASADocument())
    }

    /// assetlinks.json compiled; the empty file's matcher when the bytes are not one.
    package static func assetLinks(_ bytes: [UInt8]) -> AndroidMatcher {
        let key = ContentCache<AndroidMatcher>.key([bytes])
        if let hit = android[key] { return counted(hit, "hit") }
        let matcher = AndroidMatcher(AssetLinksDocument.parse(bytes).document ?? AssetLinksDocument(statements: []))
        android.remember(matcher, bytes: 4 * bytes.count, key: key)
        return counted(matcher, "miss")
    }

    private static func counted<Matcher>(_ matcher: Matcher, _ outcome: String) -> Matcher {
        Counter(label: "aasad_published_matcher_cache_total", dimensions: [("outcome", outcome)]).increment()
        return matcher
    }
}
