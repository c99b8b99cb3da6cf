import Logging
import Metrics
import ServiceLifecycle
import Synchronization

/// A background service whose stop is bounded whatever it waits on. On graceful shutdown or
/// cancellation it has `bound` to return; past that it is left behind (its task is cancelled and no
/// longer awaited), named in an error log and counted in `aasad_service_stop_overruns_total`, and the
/// shutdown goes on.
///
/// Why: a stop that waits on one stuck call stops everything after it. ServiceGroup stops services
/// one by one, in reverse order, and waits for each. aasad's own group escalates to a crash past
/// its bound. A test world has no bound at all (HummingbirdTesting's group): CI once saw one world's
/// services take minutes to stop, and the log could not say which service.
package struct BoundedStop: Service {
    package let name: String
    package let service: any Service
    package let bound: Duration
    package let logger: Logger
    /// Made with the service, so that a replica exports 0 until the first overrun.
    private let overruns: Counter

    package init(_ service: any Service, name: String, bound: Duration, logger: Logger) {
        self.service = service
        self.name = name
        self.bound = bound
        self.logger = logger
        overruns = Counter(label: "aasad_service_stop_overruns_total", dimensions: [("service", name)])
    }

    package func run() async throws {
        // A child task of its own (not structured), so that it can be left behind. It inherits the
        // task locals, graceful shutdown's included.
        let inner = Task { try await service.run() }
        let outcome = Outcome()
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await outcome.wait(for: inner)
            } onGracefulShutdown: {
                outcome.startClock(bound) { overrun(inner) }
            }
        } onCancel: {
            inner.cancel()
            outcome.startClock(bound) { overrun(inner) }
        }
    }

    private func overrun(_ inner: Task<Void, any Error>) {
        inner.cancel()
        overruns.increment()
        logger.error(
            "a service did not stop within its bound; left behind",
            metadata: ["service": .string(name), "bound": .stringConvertible(bound)])
    }

    /// The service's end, or the bound's: whichever comes first answers `wait`.
    private final class Outcome: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Void, any Error>?
            var result: Result<Void, any Error>?
            var clock: Task<Void, Never>?
        }
        private let state = Mutex(State())

        func wait(for inner: Task<Void, any Error>) async throws {
            try await withCheckedThrowingContinuation { continuation in
                let early = state.withLock { state -> Result<Void, any Error>? in
                    if let result = state.result { return result }
                    state.continuation = continuation
                    return nil
                }
                if let early { return continuation.resume(with: early) }
                Task {
                    let result = await inner.result
                    self.finish(result)
                }
            }
        }

        /// Ends the wait unless something already has; true if this call did.
        @discardableResult
        func finish(_ result: Result<Void, any Error>) -> Bool {
            typealias Taken = (CheckedContinuation<Void, any Error>?, Task<Void, Never>?, Bool)
            let (continuation, clock, first) = state.withLock { state -> Taken in
                guard state.result == nil else { return (nil, nil, false) }
                state.result = result
                defer {
                    state.continuation = nil
                    state.clock = nil
                }
                return (state.continuation, state.clock, true)
            }
            clock?.cancel()
            continuation?.resume(with: result)
            return first
        }

        /// Starts the bound once: past it, the wait ends and `overrun` runs.
        func startClock(_ bound: Duration, overrun: @escaping @Sendable () -> Void) {
            state.withLock { state in
                guard state.result == nil, state.clock == nil else { return }
                state.clock = Task {
                    do { try await Task.sleep(for: bound) } catch { return }
                    if self.finish(.success(())) { overrun() }
                }
            }
        }
    }
}
