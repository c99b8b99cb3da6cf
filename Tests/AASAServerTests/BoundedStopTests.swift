import AASAKernel
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// A service that never stops must not stop the ones after it: `BoundedStop` leaves it behind once
/// its bound has passed, names it, and the group's shutdown goes on in order.
@Suite struct BoundedStopTests {
    /// Ignores graceful shutdown and cancellation alike: it waits on a continuation nobody resumes
    /// (what a leaked continuation in a client library looks like).
    struct Deaf: Service {
        let started: AsyncStream<Void>.Continuation
        func run() async throws {
            started.yield()
            // Unsafe: a checked continuation dropped unresumed is reported, and this one is meant to be.
            await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
        }
    }

    /// Stops on graceful shutdown and says so.
    final class Polite: Service, Sendable {
        let stopped = Atomic(false)
        func run() async throws {
            try? await gracefulShutdown()
            stopped.store(true, ordering: .sequentiallyConsistent)
        }
    }

    struct Failing: Service {
        struct Broke: Error {}
        func run() async throws { throw Broke() }
    }

    @Test func aServiceThatNeverStopsIsLeftBehindAndNamed() async throws {
        let logs = CollectedLogs()
        let logger = Logger(label: "test") { _ in logs }
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let polite = Polite()
        // Stopped in reverse order: the deaf one first, then the polite one, which must still stop.
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .init(service: BoundedStop(polite, name: "polite", bound: .milliseconds(200), logger: logger)),
                    .init(
                        service: BoundedStop(
                            Deaf(started: startedContinuation), name: "deaf", bound: .milliseconds(200), logger: logger)
                    ),
                ],
                logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            for await _ in started { break }
            await group.triggerGracefulShutdown()
            // Without the bound this never returns: scripts/test's timeout names the test.
            try await tasks.waitForAll()
        }
        let politeStopped = polite.stopped.load(ordering: .sequentiallyConsistent)
        #expect(politeStopped, "the service after the deaf one stopped too")
        #expect(logs.lines.contains { $0.contains("did not stop within its bound") && $0.contains("service=deaf") })
        #expect(!logs.lines.contains { $0.contains("service=polite") })
    }

    @Test func aServicesOwnErrorStillReachesTheGroup() async throws {
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .init(
                        service: BoundedStop(Failing(), name: "failing", bound: .seconds(5), logger: .init(label: "t")))
                ],
                logger: .init(label: "t")))
        await #expect(throws: Failing.Broke.self) { try await group.run() }
    }
}

/// Every line logged, as "message key=value …".
final class CollectedLogs: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    var lines: [String] { lock.withLock { collected } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        lock.withLock { collected.append(([event.message.description] + fields).joined(separator: " ")) }
    }
}
