import Foundation
import Metrics

/// Tokens verified without a query (issue 43): a bounded map from a bearer token's SHA-256 to the
/// principal PostgreSQL last said it has. A hit waits only for the shared round trip that proves
/// no change committed before the request is still unheard (`ReadGeneration.sync`). Only someone
/// holding the token can produce its hash, so finding the entry is the proof, as the stored hash's
/// comparison is on the database path.
///
/// An entry is used only while all of these hold, else the request goes to the database as before:
/// - the read generation is the one it was stamped with (a revocation, a deletion, an expiry moved
///   by any path NOTIFYs, and the writing replica moves its own generation before answering);
/// - it is younger than `maxAge` (the short timer: a bound even if a notification were lost);
/// - the token has not expired by the clock;
/// - the token's use was recorded less than a minute ago, so "last used" stays as exact as it was:
///   the database path records it (at most once a minute, as before) and renews the entry.
package final class PrincipalCache: Sendable {
    package struct Entry: Sendable {
        package var principal: Principal
        package var lastUsedAt: Date
        package var generation: UInt64
        package var stored: ContinuousClock.Instant
    }

    package let generation: ReadGeneration
    package let maxAge: Duration
    private let entries: ContentCache<Entry>
    private let hits = Counter(label: "aasad_read_model_total", dimensions: [("kind", "token"), ("result", "hit")])
    private let misses = Counter(label: "aasad_read_model_total", dimensions: [("kind", "token"), ("result", "miss")])

    package init(generation: ReadGeneration, maxEntries: Int = 10_000, maxAge: Duration = .seconds(10)) {
        self.generation = generation
        self.maxAge = maxAge
        // An entry is a principal and a few dates: counted as 256 bytes, so entries bound it.
        self.entries = ContentCache(maxEntries: maxEntries, maxBytes: maxEntries * 256)
    }

    /// The principal of the token whose hash this is, if an entry may answer for it now, with the
    /// generation a round trip confirmed after this call (`ReadGeneration.sync`, shared with every
    /// request waiting at that moment): a revocation or a moved expiry whose commit came before this
    /// request is known by then, on whichever replica it was made. A hot read's answer can rely on
    /// the same round trip (`AnswerCache.answer(_:synced:)`).
    package func principal(hash: [UInt8], now: Date = Date()) async -> (principal: Principal, synced: UInt64)? {
        guard let current = generation.current, let entry = entries[hash], entry.generation == current,
            ContinuousClock.now - entry.stored < maxAge, now.timeIntervalSince(entry.lastUsedAt) < 60,
            entry.principal.expiresAt.map({ $0 > now }) ?? true,
            let synced = await generation.sync(), synced == entry.generation
        else {
            misses.increment()
            return nil
        }
        hits.increment()
        return (entry.principal, synced)
    }

    /// Keeps what the database said, stamped with the generation read before it was asked.
    package func remember(_ principal: Principal, lastUsedAt: Date, hash: [UInt8], generation stamp: UInt64) {
        entries.remember(
            Entry(principal: principal, lastUsedAt: lastUsedAt, generation: stamp, stored: .now), bytes: 256, key: hash)
    }
}
