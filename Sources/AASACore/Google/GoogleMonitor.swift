import AASAStore
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Asks Google's Digital Asset Links API about every domain with an assetlinks.json: soon after
/// each publish of it (a domain whose recorded revision is older than its current one is due at
/// the next tick), and again every `interval`. One replica at a time (the `googleMonitor`
/// advisory lock); requests paced by the API's rate. A 429, a 5xx or no answer ends the pass
/// with nothing recorded for the domains not yet checked, and the next pass waits a backoff that
/// doubles (from `tick` up to `interval`) until a pass completes.
package struct GoogleMonitor: Service {
    package let database: Database
    package let api: DigitalAssetLinksAPI
    package let interval: Duration
    package let tick: Duration
    package let staleAfter: Duration
    package let logger: Logger
    private let backoff = Backoff()

    package init(
        database: Database, api: DigitalAssetLinksAPI, interval: Duration, tick: Duration, staleAfter: Duration,
        logger: Logger
    ) {
        self.database = database
        self.api = api
        self.interval = interval
        self.tick = tick
        self.staleAfter = staleAfter
        self.logger = logger
    }

    package func run() async throws {
        try await PeriodicService("Google monitor pass", every: tick, firstAfter: tick, logger: logger) {
            _ = try await runPass()
        }.run()
    }

    package struct Pass: Sendable, Equatable {
        package var checked = 0
        /// Why the pass stopped early (a 429, a 5xx, no answer), if it did.
        package var backedOff: String?
    }

    /// One pass over the domains due; nil when another replica runs one or a backoff is running.
    package func runPass() async throws -> Pass? {
        guard backoff.state.withLock({ $0.until <= .now }) else { return nil }
        return try await database.withConnection { connection in
            let session = DBSession(connection: connection, logger: logger)
            return try await session.holdingIfFree(.googleMonitor) {
                var pass = Pass()
                let cutoff = Date().addingTimeInterval(-Double(interval.components.seconds))
                for id in try await session.domainsDueForGoogleCheck(checkedBefore: cutoff) {
                    guard let domain = try await session.domain(id: id) else { continue }
                    do {
                        try await GoogleCheck.check(domain, api: api, staleAfter: staleAfter, session: session)
                        pass.checked += 1
                    } catch let failure as DigitalAssetLinksAPI.Failure {
                        pass.backedOff = failure.description
                        let wait = backoff.state.withLock { state -> Duration in
                            let wait = min(state.next ?? tick, interval)
                            state = (.now + wait, wait * 2)
                            return wait
                        }
                        logger.warning(
                            "Google's Digital Asset Links API asks to wait; the pass stops",
                            metadata: ["error": .string(failure.description), "backoff": .string("\(wait)")])
                        return pass
                    }
                }
                backoff.state.withLock { $0 = (.now, nil) }
                return pass
            }
        }
    }

    /// Until when passes are skipped, and the next wait (nil: the first is `tick`), shared by the
    /// copies of the service.
    private final class Backoff: Sendable {
        let state = Mutex<(until: ContinuousClock.Instant, next: Duration?)>((.now, nil))
    }
}
