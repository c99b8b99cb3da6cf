import AASAKernel
import AASAStore
import Crypto
import Metrics

/// The hot reads' encoded answers (issue 43), per token and request path, each with a strong ETag:
/// a hit neither queries nor encodes. An entry answers only while the read generation is the one it
/// was stamped with (see `ReadGeneration` for what moves it, and so how old an answer can be).
package final class AnswerCache: Sendable {
    package struct Answer: Sendable {
        package var bytes: [UInt8]
        /// `"` + the first 16 bytes of the body's SHA-256 in hex + `"`: the same body, the same tag,
        /// on every replica.
        package var etag: String
        package var generation: UInt64
    }

    package let generation: ReadGeneration
    private let entries: ContentCache<Answer>
    private let hits = Counter(label: "aasad_read_model_total", dimensions: [("kind", "answer"), ("result", "hit")])
    private let misses = Counter(label: "aasad_read_model_total", dimensions: [("kind", "answer"), ("result", "miss")])

    package init(generation: ReadGeneration, maxEntries: Int = 4_096, maxBytes: Int = 64 << 20) {
        self.generation = generation
        self.entries = ContentCache(maxEntries: maxEntries, maxBytes: maxBytes)
    }

    package static func etag(of bytes: [UInt8]) -> String {
        "\"" + Hex.string(Array(SHA256.hash(data: bytes).prefix(16))) + "\""
    }

    /// The kept answer, if it is still the database's: its generation is current once every change
    /// committed before this request is known here. `synced` is a generation a round trip already
    /// confirmed for this request (its token's check); otherwise one is made (`ReadGeneration.sync`,
    /// shared with every request waiting at that moment).
    package func answer(_ key: [UInt8], synced: UInt64? = nil) async -> Answer? {
        guard let current = generation.current, let answer = entries[key], answer.generation == current else {
            misses.increment()
            return nil
        }
        let confirmed = synced == answer.generation ? synced : await generation.sync()
        guard confirmed == answer.generation else {
            misses.increment()
            return nil
        }
        hits.increment()
        return answer
    }

    /// Keeps an answer read after `stamp` was the generation (nil: not listening, so not kept).
    @discardableResult
    package func remember(_ bytes: [UInt8], key: [UInt8], generation stamp: UInt64?) -> Answer {
        let answer = Answer(bytes: bytes, etag: Self.etag(of: bytes), generation: stamp ?? 0)
        if stamp != nil { entries.remember(answer, bytes: bytes.count + key.count, key: key) }
        return answer
    }
}
