import AASAStore
import AASATestSupport
import Foundation
import Synchronization
import Testing

/// Issue 50, section 3: an aasad that starts must listen. 200 starts, two at a time, with a
/// thread of this process spinning on the CPU beside them (and the rest of the suite): every one
/// listens, answers `/health/live`, and stops on SIGTERM. `ServerProcess.start()` reports a start
/// that does not listen with its threads' state, and never retries it.
@Suite struct StartTests {
    @Test func twoHundredStartsUnderLoadAllListen() async throws {
        try await TestDatabase.shared.withDatabase { url in
            let hog = CPUHog(threads: 1)
            defer { hog.stop() }
            let failures = Failures()
            await withTaskGroup(of: Void.self) { group in
                for lane in 0..<2 {
                    group.addTask {
                        for _ in 0..<100 {
                            do {
                                let server = try ServerProcess(database: url)
                                try await server.start()
                                let live = try await Curl.get(server.baseURL + "/health/live")
                                if live.status != 200 {
                                    failures.list.withLock { $0.append("lane \(lane): live \(live.status)") }
                                }
                                kill(server.process.processIdentifier, SIGTERM)
                                let stopped = try await eventually(timeout: ConnectionFaultTests.shutdownBound) {
                                    !server.process.isRunning
                                }
                                if !stopped { failures.list.withLock { $0.append("lane \(lane): SIGTERM ignored") } }
                            } catch {
                                failures.list.withLock { $0.append("lane \(lane): \(error)") }
                            }
                        }
                    }
                }
            }
            let failed = failures.list.withLock { $0 }
            #expect(failed.isEmpty, "\(failed.count) of 200 starts failed: \(failed.prefix(3))")
        }
    }
}

private final class Failures: Sendable {
    let list = Mutex<[String]>([])
}

/// Threads that keep cores busy until stopped: the "loaded machine" of a test.
final class CPUHog: Sendable {
    private let running = Atomic(true)

    init(threads: Int) {
        for _ in 0..<threads {
            let thread = Thread { [self] in
                var x: UInt64 = 1
                while running.load(ordering: .relaxed) {
                    for _ in 0..<100_000 { x = x &* 6_364_136_223_846_793_005 &+ 1 }
                }
                if x == 0 { print("") }
            }
            thread.start()
        }
    }

    func stop() { running.store(false, ordering: .relaxed) }
}
