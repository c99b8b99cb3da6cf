/// The time a service that waits reads (a backoff, a limiter): the continuous clock in production,
/// a clock the test moves in tests, so that a test of a 20 s backoff advances it instead of waiting.
package struct ServiceClock: Sendable {
    package let now: @Sendable () -> ContinuousClock.Instant

    package init(now: @escaping @Sendable () -> ContinuousClock.Instant) { self.now = now }

    package static let continuous = ServiceClock { .now }
}
