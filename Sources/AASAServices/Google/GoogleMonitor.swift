import AASAKernel
import AASAOutbound
import AASARules
import AASAStore
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Asks Google's Digital Asset Links API about every domain with an assetlinks.json: soon after
/// each publish of it (a domain whose recorded revision is older than its current one is due at
/// the next tick), and again every `interval`. One replica at a time (the `googleMonitor`
/// advisory lock); requests paced by the API's rate.
///
/// One domain's trouble stays with it (issue 50): a 5xx, a timeout or no answer for its site marks
/// its packages `error` with the status and Google's message, backs that domain off alone (from
/// `tick`, doubling, up to `interval`), and the pass goes on; a failed domain is checked after the
/// others (its `checked_at` moved). Only a 429, or `failuresInARow` domains failing one after
/// another (the API itself is down), ends the pass and backs the whole monitor off: for the 429's
/// `Retry-After` when it gives one, else a wait that doubles from `tick` up to `interval`.
package struct GoogleMonitor: Service {
    package let database: Database
    package let api: DigitalAssetLinksAPI
    package let interval: Duration
    package let tick: Duration
    package let staleAfter: Duration
    package let logger: Logger
    private let backoff: Backoff

    package init(
        database: Database, api: DigitalAssetLinksAPI, interval: Duration, tick: Duration, staleAfter: Duration,
        logger: Logger, clock: ServiceClock = .continuous
    ) {
        self.database = database
        self.api = api
        self.interval = interval
        self.tick = tick
        self.staleAfter = staleAfter
        self.logger = logger
        self.backoff = Backoff(clock: clock)
    }

    package func run() async throws {
        try await PeriodicService("Google monitor pass", every: tick, firstAfter: tick, logger: logger) {
            _ = try await runPass()
        }.run()
    }

    package struct Pass: Sendable, Equatable {
        package var checked = 0
        /// Why the pass stopped early (a 429, several domains failing in a row), if it did.
        package var backedOff: String?
        /// The hosts whose check failed in this pass (each backed off alone).
        package var failed: [String] = []

        package init(checked: Int = 0, backedOff: String? = nil, failed: [String] = []) {
            self.checked = checked
            self.backedOff = backedOff
            self.failed = failed
        }
    }

    /// Domains failing one after another that make the pass stop: the API, not a site, is down.
    package static let failuresInARow = 3

    /// One pass over the domains due; nil when another replica runs one or a backoff is running.
    package func runPass() async throws -> Pass? {
        guard backoff.passReady() else { return nil }
        return try await database.withConnection { connection in
            let session = DBSession(connection: connection, logger: logger)
            return try await session.holdingIfFree(.googleMonitor) {
                var pass = Pass()
                var inARow = 0
                let cutoff = Date().addingTimeInterval(-Double(interval.components.seconds))
                for id in try await session.domainsDueForGoogleCheck(checkedBefore: cutoff) {
                    guard backoff.domainReady(id), let domain = try await session.domain(id: id) else { continue }
                    do {
                        let outcome = try await GoogleCheck.check(
                            domain, api: api, staleAfter: staleAfter, session: session)
                        pass.checked += 1
                        // Any package in `error` is retried on the domain's own backoff (a refusal
                        // such as a 400 too, so it is not asked every tick); only a failure of the
                        // API (5xx, timeout) counts towards stopping the pass.
                        let refused = outcome.records.first { $0.state == "error" }?.detail
                        guard let why = outcome.unavailable ?? refused else {
                            backoff.domainSucceeded(id)
                            inARow = 0
                            continue
                        }
                        pass.failed.append(domain.host)
                        let wait = backoff.domainFailed(id, first: tick, cap: interval)
                        logger.warning(
                            "Google's Digital Asset Links API failed for one domain; it waits, the others go on",
                            metadata: [
                                "host": .string(domain.host), "error": .string(why), "backoff": .string("\(wait)"),
                            ])
                        inARow = outcome.unavailable == nil ? 0 : inARow + 1
                        if inARow >= Self.failuresInARow {
                            pass.backedOff = "\(inARow) domains failed in a row, the last: \(why)"
                            backOff(why: pass.backedOff ?? why, retryAfter: nil)
                            return pass
                        }
                    } catch DigitalAssetLinksAPI.Failure.throttled(let why, let retryAfter) {
                        pass.backedOff = why
                        backOff(why: why, retryAfter: retryAfter)
                        return pass
                    }
                }
                backoff.passSucceeded()
                return pass
            }
        }
    }

    /// Holds every pass for the 429's `Retry-After`, or a wait doubling from `tick` to `interval`.
    private func backOff(why: String, retryAfter: Duration?) {
        let wait = backoff.passFailed(retryAfter: retryAfter, first: tick, cap: interval)
        logger.warning(
            "Google's Digital Asset Links API asks to wait; the pass stops",
            metadata: ["error": .string(why), "backoff": .string("\(wait)")])
    }

    /// Until when passes are skipped, and the next wait (nil: the first is `tick`), shared by the
    /// copies of the service; and the same per domain that failed alone.
    private final class Backoff: Sendable {
        private let clock: ServiceClock
        private let pass: Mutex<(until: ContinuousClock.Instant, next: Duration?)>
        private let domains = Mutex<[Int64: (until: ContinuousClock.Instant, next: Duration)]>([:])

        init(clock: ServiceClock) {
            self.clock = clock
            pass = Mutex((clock.now(), nil))
        }

        func passReady() -> Bool {
            let now = clock.now()
            return pass.withLock { $0.until <= now }
        }

        func passSucceeded() {
            let now = clock.now()
            pass.withLock { $0 = (now, nil) }
        }

        /// Holds passes for `retryAfter`, or for the next wait doubling from `first` to `cap`; returns it.
        func passFailed(retryAfter: Duration?, first: Duration, cap: Duration) -> Duration {
            let now = clock.now()
            return pass.withLock { state in
                let doubling = min(state.next ?? first, cap)
                let wait = retryAfter ?? doubling
                state = (now + wait, min(doubling * 2, cap))
                return wait
            }
        }

        func domainReady(_ id: Int64) -> Bool {
            let now = clock.now()
            return domains.withLock { ($0[id]?.until ?? now) <= now }
        }

        func domainSucceeded(_ id: Int64) {
            _ = domains.withLock { $0.removeValue(forKey: id) }
        }

        /// Backs the domain off for its next wait; returns it.
        func domainFailed(_ id: Int64, first: Duration, cap: Duration) -> Duration {
            let now = clock.now()
            return domains.withLock { domains in
                let wait = min(domains[id]?.next ?? first, cap)
                domains[id] = (now + wait, min(wait * 2, cap))
                return wait
            }
        }
    }
}
