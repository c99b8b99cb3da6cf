import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import Synchronization

/// Failed console sign-ins, per client address: after `perMinute` failures in 60 s, sign-in
/// answers 429 until the oldest of them is a minute old. Counted per server process, like
/// `FetchLimiter`: a token's 256 random bits are the real defence; this keeps a guesser loud and slow.
/// Its minute is read from `now` (issue 50: a test on a loaded machine took 156 s for six attempts,
/// so they did not fall in one real minute; the test holds the clock instead).
final class SignInLimiter: Sendable {
    let perMinute: Int
    let now: @Sendable () -> ContinuousClock.Instant
    private let failures = Mutex<[String: [ContinuousClock.Instant]]>([:])

    init(perMinute: Int = 5, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.perMinute = perMinute
        self.now = now
    }

    func admit(_ client: String) throws {
        let now = now()
        let wait: Int? = failures.withLock { table in
            let recent = (table[client] ?? []).filter { now - $0 < .seconds(60) }
            table[client] = recent.isEmpty ? nil : recent
            guard recent.count >= perMinute, let oldest = recent.first else { return nil }
            return Int((Duration.seconds(60) - (now - oldest)).components.seconds) + 1
        }
        if let wait {
            throw ServiceError.tooManyRequests(
                "\(perMinute) failed sign-ins from here in a minute; try again in \(wait) s", retryAfter: wait)
        }
    }

    func recordFailure(_ client: String) {
        let now = now()
        failures.withLock { table in
            table[client, default: []].append(now)
            // Forget quiet clients, so the table stays as small as the traffic.
            if table.count > 4096 { table = table.filter { $0.value.contains { now - $0 < .seconds(60) } } }
        }
    }
}
