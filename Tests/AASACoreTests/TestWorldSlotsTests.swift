import AASATestSupport
import Synchronization
import Testing

/// The suite's own load bound (issue 61): never more worlds at once than slots, every waiting world
/// runs in the end, and a world that starts a second one inside its slot does not wait on itself.
@Suite struct TestWorldSlotsTests {
    @Test func neverMoreWorldsThanSlotsAndEveryWorldRuns() async throws {
        let slots = TestWorldSlots(capacity: 3)
        let running = Counts()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await slots.hold {
                        running.withLock {
                            $0.now += 1
                            $0.most = max($0.most, $0.now)
                        }
                        await Task.yield()
                        // A second world inside the first one's slot (two servers on one database).
                        try await slots.hold { await Task.yield() }
                        running.withLock {
                            $0.now -= 1
                            $0.done += 1
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let seen = running.withLock { $0 }
        #expect(seen.done == 40)
        #expect(seen.most <= 3)
        #expect(slots.peak == seen.most)
    }
}

private final class Counts: Sendable {
    private let state = Mutex((now: 0, most: 0, done: 0))
    func withLock<T>(_ body: (inout (now: Int, most: Int, done: Int)) -> T) -> T { state.withLock { body(&$0) } }
}
