import AASAModel
import Metrics
import NIOPosix

/// Revision diffs already computed, by what they were computed from. A diff is a function of the
/// two files and the host alone, and its costly part (every URL derived from both files, up to
/// 5,000, asked of both) was computed again for the same pair on every visit of the console's
/// Publish page and every `GET …/diff?to=draft` while nothing changed. Computed on NIO's thread
/// pool, as a validation is (`ValidatedRenders`), not on the pool that serves other requests.
enum DiffAnswers {
    private static let cache = ContentCache<JSONValue>(maxEntries: 128, maxBytes: 4 << 20)

    /// `compute`'s answer for this `kind` of diff of `old` and `new` on `host`.
    static func answer(
        _ kind: String, host: String, old: [UInt8], new: [UInt8], compute: @escaping @Sendable () throws -> JSONValue
    ) async throws -> JSONValue {
        let key = ContentCache<JSONValue>.key([Array(kind.utf8), Array(host.utf8), old, new])
        if let hit = cache[key] {
            Counter(label: "aasad_diff_cache_total", dimensions: [("outcome", "hit")]).increment()
            return hit
        }
        Counter(label: "aasad_diff_cache_total", dimensions: [("outcome", "miss")]).increment()
        let value = try await NIOThreadPool.singleton.runIfActive(compute)
        cache.remember(value, bytes: old.count + new.count, key: key)
        return value
    }
}
