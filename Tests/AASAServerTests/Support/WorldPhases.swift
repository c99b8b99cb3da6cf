import Foundation
import Synchronization
import Testing

/// Where each running test world is (cloning its database, a call, shutting its services down, …),
/// so that a world stuck in one place says which place: CI once killed the suite after a test that
/// passes in 1.5 s on its own had run for seven minutes, and the log could only name the test.
/// A watchdog prints each phase that lasts more than `stuckAfter`, once. It never fails or ends a
/// test: it is what the log shows when scripts/test's timeout kills a hung run.
final class WorldPhases: Sendable {
    static let shared = WorldPhases()
    static let stuckAfter: Duration = .seconds(120)
    static let waitingForSlot = "waiting for a test world's slot"

    private struct Entry {
        var test: String
        var phase: String
        var since: ContinuousClock.Instant
        var reported = false
    }

    private let entries = Mutex<[UUID: Entry]>([:])
    private let watching = Mutex(false)

    /// A new world of the running test; its first phase.
    func begin(_ phase: String) -> UUID {
        let id = UUID()
        let test = Test.current?.name ?? "a test"
        entries.withLock { $0[id] = Entry(test: test, phase: phase, since: .now) }
        startWatching()
        return id
    }

    func enter(_ id: UUID, _ phase: String) {
        entries.withLock {
            $0[id]?.phase = phase
            $0[id]?.since = .now
            $0[id]?.reported = false
        }
    }

    func end(_ id: UUID) {
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }

    private func startWatching() {
        let first = watching.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else { return }
        Task.detached(priority: .low) { [self] in
            while true {
                try? await Task.sleep(for: .seconds(15))
                let stuck = entries.withLock { entries in
                    var found: [String] = []
                    // A world waiting for its slot is the suite's bound at work, not a stuck world.
                    for (id, entry) in entries
                    where !entry.reported && .now - entry.since > Self.stuckAfter
                        && entry.phase != Self.waitingForSlot
                    {
                        entries[id]?.reported = true
                        found.append("\(entry.test): \(entry.phase), for \(ContinuousClock.now - entry.since)")
                    }
                    return found
                }
                for line in stuck { print("stuck test world: \(line)") }
            }
        }
    }
}
