import AASAKernel
import Foundation
import Synchronization

/// Bounds what callers can make aasad fetch on a domain's behalf (issue 24): a probe or a CDN
/// check of one domain runs once at a time, and starts at most `perMinute` times in any 60 s.
/// Past that the caller gets 429 with `Retry-After`. Counted per server process: two replicas
/// allow twice as much, which still bounds it.
package final class FetchLimiter: Sendable {
    private struct State {
        package var inFlight: Set<String> = []
        package var starts: [String: [ContinuousClock.Instant]] = [:]
    }

    package let perMinute: Int
    private let state = Mutex(State())

    package init(perMinute: Int = 6) { self.perMinute = perMinute }

    /// Runs `work` as the one run of `kind` on `host`, or throws 429.
    package func run<T: Sendable>(_ kind: String, host: String, _ work: () async throws -> T) async throws -> T {
        let key = kind + " " + host
        try admit(key, what: "\(kind) of \(host)")
        defer { _ = state.withLock { $0.inFlight.remove(key) } }
        return try await work()
    }

    private func admit(_ key: String, what: String) throws {
        let now = ContinuousClock.now
        let refusal: ServiceError? = state.withLock { state in
            if state.inFlight.contains(key) {
                return .tooManyRequests("a \(what) is already running; wait for its answer", retryAfter: 5)
            }
            let recent = (state.starts[key] ?? []).filter { now - $0 < .seconds(60) }
            if recent.count >= perMinute, let oldest = recent.first {
                let wait = Int((Duration.seconds(60) - (now - oldest)).components.seconds) + 1
                state.starts[key] = recent
                return .tooManyRequests(
                    "at most \(perMinute) runs of a \(what) a minute; try again in \(wait) s", retryAfter: wait)
            }
            state.starts[key] = recent + [now]
            state.inFlight.insert(key)
            // Forget hosts nobody asked about for a minute, so the table stays as small as the traffic.
            if state.starts.count > 4096 {
                state.starts = state.starts.filter { $0.value.contains { now - $0 < .seconds(60) } }
            }
            return nil
        }
        if let refusal { throw refusal }
    }
}
