import Synchronization

/// This replica's read generation (issue 43): a counter that moves whenever the database may have
/// changed under what the read model holds. Every cached entry (an encoded answer, a token's
/// principal) is stamped with the generation read *before* its database read began, and is served
/// only while the generation is still that one.
/// - A change made through this replica moves it before the change's response is sent
///   (`RequestMiddleware`).
/// - A change made anywhere else moves it when its NOTIFY on `aasa_reads` arrives
///   (`ReadModelFollower`; the trigger of migration 0018 sends it at commit). The follower moves it
///   on the connection's event loop, as the notification is read.
/// - `sync()` closes the gap a notification still on its way would leave: it waits for one round
///   trip on the listening connection that began after the call, before whose answer PostgreSQL
///   sends every notification of a commit already made. A change whose response a client has seen
///   is therefore known here once `sync()` returns. Concurrent callers share one round trip.
/// - While this replica is not listening (starting, or its LISTEN connection lost), there is no
///   generation at all: nothing is served from memory, and nothing is kept.
package final class ReadGeneration: Sendable {
    private struct State {
        var value: UInt64 = 0
        var listening = false
        /// Callers of `sync()` waiting for a round trip that has not started yet.
        var waiting: [Waiter] = []
        /// Tells the follower that `waiting` is not empty.
        var wake: AsyncStream<Void>.Continuation?
    }
    private let state = Mutex(State())

    package init() {}

    /// The generation to stamp an entry with, or to check one against; nil while not listening.
    package var current: UInt64? {
        state.withLock { $0.listening ? $0.value : nil }
    }

    /// Something may have changed: every entry stamped before now is stale.
    package func bump() {
        state.withLock { $0.value &+= 1 }
    }

    /// The generation once every change committed before this call is known here; nil when not
    /// listening, or when the round trip failed or missed its deadline (`ReadModelFollower`, which
    /// then lets every waiting caller go at once: a read never waits on a connection that stopped
    /// answering).
    package func sync() async -> UInt64? {
        guard state.withLock({ $0.listening && $0.wake != nil }) else { return nil }
        let waiter = Waiter()
        await withCheckedContinuation { continuation in
            waiter.set(continuation)
            let wake: AsyncStream<Void>.Continuation? = state.withLock { state in
                guard state.listening, let wake = state.wake else { return nil }
                state.waiting.append(waiter)
                return wake
            }
            if let wake { wake.yield() } else { waiter.resume() }
        }
        return current
    }

    /// One caller of `sync()`, resumed exactly once: by its round trip, by that round trip's
    /// failure or deadline, or by the follower stopping, whichever comes first.
    package final class Waiter: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Void, Never>?
            var resumed = false
        }
        private let state = Mutex(State())

        func set(_ continuation: CheckedContinuation<Void, Never>) {
            let resumeNow = state.withLock { state -> Bool in
                if state.resumed { return true }
                state.continuation = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }

        /// Resumes the caller unless something already has.
        package func resume() {
            let continuation: CheckedContinuation<Void, Never>? = state.withLock { state in
                guard !state.resumed else { return nil }
                state.resumed = true
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume()
        }
    }

    /// The follower, listening: its round trips answer `sync()`, one per batch of callers.
    package func listening(wake: AsyncStream<Void>.Continuation) {
        state.withLock {
            $0.value &+= 1
            $0.listening = true
            $0.wake = wake
        }
    }

    /// The follower stopped listening (a change committed meanwhile was never told): the generation
    /// moves, and every caller waiting for a round trip is let go (it finds no generation).
    package func notListening() {
        let waiting = state.withLock { state in
            state.value &+= 1
            state.listening = false
            state.wake = nil
            defer { state.waiting = [] }
            return state.waiting
        }
        for waiter in waiting { waiter.resume() }
    }

    /// The callers a round trip about to start will answer.
    package func takeWaiting() -> [Waiter] {
        state.withLock { state in
            defer { state.waiting = [] }
            return state.waiting
        }
    }

    /// For a replica that keeps nothing in memory (`AASA_READ_CACHE=off`, and the tools): never
    /// listening, so every read goes to the database.
    package static let off = ReadGeneration()
}
