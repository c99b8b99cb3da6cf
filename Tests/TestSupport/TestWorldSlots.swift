import Foundation
import Synchronization

/// How many test worlds (a cloned database, its pools, the application or aasad processes on it) run
/// at once. Swift Testing starts every test together; before this bound, 430 worlds cloned their
/// databases at once and a 2-core machine with other work took 120 s to clone one (issue 61). A world
/// now waits here for a slot, for as long as it takes: never for a deadline.
///
/// Holding is re-entrant within a task tree: a world that starts a second server on its own database,
/// or runs two replicas in child tasks, uses the slot it holds (asking for a second slot while every
/// slot's holder does the same would wait for ever).
public final class TestWorldSlots: Sendable {
    public static let shared = TestWorldSlots(capacity: TestWorldSlots.defaultCapacity())

    @TaskLocal static var holding = false

    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
        var peak = 0
        var inUse = 0
    }

    public let capacity: Int
    private let state: Mutex<State>

    public init(capacity: Int) {
        self.capacity = capacity
        state = Mutex(State(free: capacity))
    }

    /// `AASA_TEST_WORLDS` when set (scripts/test sets it from the cores and PostgreSQL's connections);
    /// otherwise three per core, at least four: a world mostly waits on PostgreSQL, a child process
    /// or a socket, so one per core leaves the cores idle, and more than a few per core is where a
    /// loaded 2-core machine's clones and starts took minutes.
    static func defaultCapacity() -> Int {
        if let raw = ProcessInfo.processInfo.environment["AASA_TEST_WORLDS"], let value = Int(raw), value > 0 {
            return value
        }
        return max(4, ProcessInfo.processInfo.activeProcessorCount * 3)
    }

    /// The most worlds that ran at once so far (the bound's test reads it).
    public var peak: Int { state.withLock { $0.peak } }

    /// Runs `body` in a slot: at once when this task already holds one, otherwise after a slot frees.
    public func hold<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        if Self.holding { return try await body() }
        await acquire()
        defer { release() }
        return try await Self.$holding.withValue(true) { try await body() }
    }

    private func acquire() async {
        let granted = state.withLock { state -> Bool in
            guard state.free > 0 else { return false }
            state.free -= 1
            state.inUse += 1
            state.peak = max(state.peak, state.inUse)
            return true
        }
        if granted { return }
        // Resumed by `release`, which hands its slot over directly: nothing can take it in between.
        await withCheckedContinuation { continuation in
            let grantedMeanwhile = state.withLock { state -> Bool in
                if state.free > 0 {
                    state.free -= 1
                    state.inUse += 1
                    state.peak = max(state.peak, state.inUse)
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if grantedMeanwhile { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.free += 1
                state.inUse -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
