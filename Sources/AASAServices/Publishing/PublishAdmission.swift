import AASAKernel
import Synchronization

/// How many publishes (and rollbacks, and promotions' publishes) may be in flight on this replica at
/// once, per domain and per team, before one has a connection. Publishes of one domain run one at
/// a time (its lock), and a publish holds its connection through the web roots and the object
/// stores: 24 publishes of one domain against a bucket that never answered held the whole pool,
/// and every other team's requests waited behind them or were refused. Past a bound a publish is
/// refused at once, 429 with Retry-After, holding nothing.
package final class PublishAdmission: Sendable {
    package let perDomain: Int
    package let perTeam: Int
    private let inFlight = Mutex<(domains: [String: Int], teams: [String: Int])>(([:], [:]))

    /// From the pool's size: one team at most a third of it, one domain at most two fifths (never
    /// below 2, so a publish can always wait behind another).
    package init(poolSize: Int) {
        perTeam = max(2, poolSize / 3)
        perDomain = max(2, poolSize * 2 / 5)
    }

    /// Runs `body` once admitted; `team` is the acting team (nil: an admin or the system, bound per
    /// domain only).
    package func admitted<T: Sendable>(
        host: String, team: String?, _ body: () async throws -> T
    ) async throws -> T {
        try admit(host: host, team: team)
        defer { release(host: host, team: team) }
        return try await body()
    }

    private func admit(host: String, team: String?) throws {
        let refusal: ServiceError? = inFlight.withLock { state in
            if state.domains[host, default: 0] >= perDomain {
                return .tooManyRequests(
                    """
                    \(perDomain) publishes of \(host) are already in flight on this server (they run one at a \
                    time); retry after the Retry-After seconds
                    """, retryAfter: 5)
            }
            if let team, state.teams[team, default: 0] >= perTeam {
                return .tooManyRequests(
                    """
                    team \(team) already has \(perTeam) publishes in flight on this server; wait for them, \
                    then retry after the Retry-After seconds
                    """, retryAfter: 5)
            }
            state.domains[host, default: 0] += 1
            if let team { state.teams[team, default: 0] += 1 }
            return nil
        }
        if let refusal { throw refusal }
    }

    private func release(host: String, team: String?) {
        inFlight.withLock { state in
            state.domains[host, default: 1] -= 1
            if state.domains[host] == 0 { state.domains[host] = nil }
            if let team {
                state.teams[team, default: 1] -= 1
                if state.teams[team] == 0 { state.teams[team] = nil }
            }
        }
    }
}
