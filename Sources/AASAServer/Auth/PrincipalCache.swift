import AASAStore
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Token ID → the token as authentication last read it, so that an authenticated request makes no
/// token query (issue 23: the profile's largest database share of a read). Safe because every
/// change to what a token may do NOTIFYs `aasa_tokens` (`migrations/0012_token_notifications.sql`)
/// and `PrincipalCacheListener` forgets the token on every replica at once. While the listener is
/// not listening (starting, or its connection lost) the cache answers nothing: a missed
/// notification must not let a revoked token in. Expiry is checked on every request, by the
/// caller, against the cached `expiresAt`.
final class PrincipalCache: Sendable {
    struct State {
        var entries: [UUID: TokenRecord] = [:]
        var listening = false
        /// Bumped by every invalidation: a read that began before one may not store its answer.
        var generation = 0
    }

    private let state = Mutex(State())
    /// The most tokens kept; past it the cache starts over (tokens are few, this bounds memory).
    let capacity: Int

    init(capacity: Int = 10_000) { self.capacity = capacity }

    /// The cached token, if the cache may answer now.
    func token(_ id: UUID) -> TokenRecord? {
        state.withLock { $0.listening ? $0.entries[id] : nil }
    }

    /// Where an invalidation count stands before a database read of a token.
    var generation: Int { state.withLock { $0.generation } }

    /// Keeps `record`, unless something was invalidated since `generation` was read (the record
    /// may predate it) or the cache is not listening.
    func store(_ record: TokenRecord, readAt generation: Int) {
        state.withLock { state in
            guard state.listening, state.generation == generation, record.revokedAt == nil else { return }
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[record.id] = record
        }
    }

    /// Records a use written to the database, so the next minute's requests do not write it again.
    func used(_ id: UUID, at date: Date) {
        state.withLock { state in state.entries[id]?.lastUsedAt = date }
    }

    /// A notification's payload: one token ID, or `*` for all.
    func invalidate(_ payload: String) {
        state.withLock { state in
            state.generation += 1
            if let id = UUID(uuidString: payload) { state.entries[id] = nil } else { state.entries.removeAll() }
        }
    }

    func setListening(_ listening: Bool) {
        state.withLock { state in
            state.generation += 1
            state.entries.removeAll()
            state.listening = listening
        }
    }
}

/// LISTENs to `aasa_tokens` for as long as the server runs, on a connection of its own, and
/// applies each notification to the cache; reconnects after a second when the connection drops.
struct PrincipalCacheListener: Service {
    let database: Database
    let cache: PrincipalCache
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await database.client.withConnection { connection in
                        try await connection.listen(on: "aasa_tokens") { notifications in
                            // Listening from here on: what changed before is not in the (empty) cache.
                            cache.setListening(true)
                            for try await notification in notifications { cache.invalidate(notification.payload) }
                        }
                    }
                } catch {
                    if Task.isCancelled { break }
                    logger.warning(
                        "token notifications interrupted; authenticating from the database until listening again",
                        metadata: ["error": .string(String(describing: error))])
                }
                cache.setListening(false)
                do { try await Task.sleep(for: .seconds(1)) } catch { break }
            }
            cache.setListening(false)
        }
    }
}
