import AASAKernel
import AASAModel
import Metrics
import NIOPosix

/// Revision diffs already computed, by what they were computed from. A diff is a function of the
/// two files and the host alone, and its costly part (every URL derived from both files, up to
/// 5,000, asked of both) was computed again for the same pair on every visit of the console's
/// Publish page and every `GET …/diff?to=draft` while nothing changed. Computed on NIO's thread
/// pool, as a validation is (`ValidatedRenders`), not on the pool that serves other requests.
/// Each `kind` keeps one type of answer (the AASA's diff as JSON; assetlinks.json's as its two
/// model values), so an entry found is always of the type asked for.
package enum DiffAnswers {
    private static let cache = ContentCache<any Sendable>(maxEntries: 128, maxBytes: 4 << 20)

    /// `compute`'s answer for this `kind` of diff of `old` and `new` on `host`.
    package static func answer<Answer: Sendable>(
        _ kind: String, host: String, old: [UInt8], new: [UInt8], compute: @escaping @Sendable () throws -> Answer
    ) async throws -> Answer {
        let key = ContentCache<any Sendable>.key([Array(kind.utf8), Array(host.utf8), old, new])
        if let hit = cache[key] as? Answer {
            Counter(label: "aasad_diff_cache_total", dimensions: [("outcome", "hit")]).increment()
            return hit
        }
        Counter(label: "aasad_diff_cache_total", dimensions: [("outcome", "miss")]).increment()
        let value = try await NIOThreadPool.singleton.runIfActive(compute)
        cache.remember(value, bytes: old.count + new.count, key: key)
        return value
    }
}
