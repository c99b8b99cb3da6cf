import Logging
import ServiceLifecycle

/// The one loop of every periodic worker (issue 40: the webhook worker, the CDN monitor, the
/// reconciler and the janitor each wrote its own): `pass` first after `firstDelay` (zero: at once),
/// then every `interval`, until graceful shutdown, whose cancellation ends a sleep quietly. A pass
/// that throws is logged and handed to `onError`, and the loop goes on. Each worker keeps its pass
/// as a function of its own, which tests call directly instead of waiting for the clock.
package struct PeriodicService: Service {
    package let name: String
    package let interval: Duration
    package let firstDelay: Duration
    package let logger: Logger
    package let pass: @Sendable () async throws -> Void
    package let onError: @Sendable (any Error) async -> Void

    package init(
        _ name: String, every interval: Duration, firstAfter firstDelay: Duration = .zero, logger: Logger,
        onError: @escaping @Sendable (any Error) async -> Void = { _ in },
        pass: @escaping @Sendable () async throws -> Void
    ) {
        self.name = name
        self.interval = interval
        self.firstDelay = firstDelay
        self.logger = logger
        self.onError = onError
        self.pass = pass
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            if firstDelay > .zero {
                do { try await Task.sleep(for: firstDelay) } catch { return }
            }
            while !Task.isCancelled {
                do { try await pass() } catch {
                    // A pass cut short by the graceful shutdown has not failed.
                    if error is CancellationError || Task.isCancelled { return }
                    logger.warning("\(name) failed", metadata: ["error": .string(String(describing: error))])
                    await onError(error)
                }
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }
}
