import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import Synchronization
import Testing

/// Many clients of several teams edit and publish the same domains at once, each write carrying
/// the If-Match it read. Afterwards: every accepted write is the one that state shows (no lost
/// update), each rule set's version grew by exactly its accepted writes, revision numbers run
/// 1...n with no duplicate, and the audit holds exactly one event per accepted write or publish.
@Suite struct ConcurrencyTests {
    static let teams = ["red", "green", "blue"]
    static let hosts = ["one.example", "two.example"]
    static let clientsPerTeam = 4
    static let rounds = 6

    static func app(_ team: String) -> String { "ABCDE12345.com.\(team).app" }
    static func version(_ etag: String?) -> Int? { etag.flatMap { Int($0.filter(\.isNumber)) } }

    struct Write: Sendable {
        var team: String
        var host: String
        var version: Int
        var pattern: String
    }

    final class Shared: Sendable {
        let tally = Mutex(Tally())
    }

    struct Tally: Sendable {
        var writes: [Write] = []
        var conflicts = 0
        var revisionsCreated: [String: Int] = [:]
        var unchangedPublishes = 0
        var unexpected: [String] = []
    }

    @Test func manyClientsOfSeveralTeamsLoseNothing() async throws {
        try await TestWorld.run { w in
            var tokens: [String: String] = [:]
            for host in Self.hosts {
                try #require(
                    try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": host]).status == 201)
            }
            for team in Self.teams {
                try await w.createTeam(team)
                tokens[team] = try await w.teamToken(team, scopes: ["write"]).secret
                try #require(
                    try await w.call(
                        .post, "/v1/teams/\(team)/apps", token: tokens[team], json: ["appID": Self.app(team)]
                    ).status == 201)
                for host in Self.hosts {
                    try #require(
                        try await w.call(
                            .put, "/v1/domains/\(host)/grants/\(team)", token: w.adminToken,
                            json: ["pathPrefixes": ["/\(team)/"]]
                        ).status == 200)
                }
            }
            let tokensByTeam = tokens
            let shared = Shared()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for team in Self.teams {
                    for client in 0..<Self.clientsPerTeam {
                        group.addTask {
                            let token = tokensByTeam[team]!
                            for round in 0..<Self.rounds {
                                let host = Self.hosts[(client + round) % Self.hosts.count]
                                let path = "/v1/domains/\(host)/apps/\(Self.app(team))/rules"
                                let read = try await w.call(.get, path, token: token)
                                let pattern = "/\(team)/c\(client)/r\(round)/*"
                                var headers: [String: String] = [:]
                                if let etag = read.etag { headers["If-Match"] = etag }
                                let put = try await w.call(
                                    .put, path, token: token, json: ["rules": [["/": pattern]]], headers: headers)
                                // A team's publishes in flight are bounded (a share of the pool):
                                // one refused with 429 is sent again, as its Retry-After says.
                                var publish = try await w.call(
                                    .post, "/v1/domains/\(host)/publish", token: token,
                                    json: ["reason": "\(team) c\(client) r\(round)"])
                                for _ in 0..<600 where publish.status == 429 {
                                    try await Task.sleep(for: .milliseconds(100))
                                    publish = try await w.call(
                                        .post, "/v1/domains/\(host)/publish", token: token,
                                        json: ["reason": "\(team) c\(client) r\(round)"])
                                }
                                shared.tally.withLock { t in
                                    switch put.status {
                                    case 200:
                                        t.writes.append(
                                            Write(
                                                team: team, host: host, version: Self.version(put.etag) ?? -1,
                                                pattern: pattern))
                                    case 412: t.conflicts += 1
                                    default: t.unexpected.append("PUT \(put.status) \(put.text)")
                                    }
                                    switch publish.status {
                                    case 201: t.revisionsCreated[host, default: 0] += 1
                                    case 200: t.unchangedPublishes += 1
                                    default: t.unexpected.append("publish \(publish.status) \(publish.text)")
                                    }
                                }
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let t = shared.tally.withLock { $0 }
            #expect(t.unexpected.isEmpty, "\(t.unexpected)")
            #expect(t.writes.count + t.conflicts == Self.teams.count * Self.clientsPerTeam * Self.rounds)
            #expect(t.writes.count > 0 && t.revisionsCreated.values.reduce(0, +) > 0)

            for team in Self.teams {
                for host in Self.hosts {
                    let accepted = t.writes.filter { $0.team == team && $0.host == host }.sorted {
                        $0.version < $1.version
                    }
                    let current = try await w.call(
                        .get, "/v1/domains/\(host)/apps/\(Self.app(team))/rules", token: tokensByTeam[team])
                    let rules = (current.object["rules"] as? [[String: Any]] ?? []).compactMap { $0["/"] as? String }
                    // Every accepted write got its own version, one apart: none was applied over another unseen.
                    #expect(
                        Set(accepted.map(\.version)).count == accepted.count, "\(team) \(host): a version given twice")
                    if let first = accepted.first, let last = accepted.last {
                        #expect(
                            Self.version(current.etag) == last.version,
                            "\(team) \(host): the last accepted write is the state")
                        #expect(
                            rules == [last.pattern], "\(team) \(host): lost update, \(rules) instead of \(last.pattern)"
                        )
                        #expect(
                            last.version - first.version == accepted.count - 1,
                            "\(team) \(host): versions with gaps")
                    }
                }
            }

            var revisions = 0
            for host in Self.hosts {
                // One more publish by the admin: then the current revision holds every team's last rule.
                let final = try await w.call(
                    .post, "/v1/domains/\(host)/publish", token: w.adminToken, json: ["reason": "final"])
                #expect(final.status == 200 || final.status == 201)
                let created = t.revisionsCreated[host, default: 0] + (final.status == 201 ? 1 : 0)
                let listed = try await w.call(.get, "/v1/domains/\(host)/revisions?limit=100", token: w.adminToken)
                let numbers = (listed.object["items"] as? [[String: Any]] ?? []).compactMap { $0["number"] as? Int }
                    .sorted()
                #expect(
                    numbers == Array(1...max(1, created)), "\(host): one revision per 201, numbered 1...n: \(numbers)")
                revisions += numbers.count
                let file = try await w.call(
                    .get, "/v1/domains/\(host)/revisions/\(numbers.last ?? 1)/file", token: w.adminToken
                ).text
                for team in Self.teams {
                    if let last = t.writes.filter({ $0.team == team && $0.host == host }).max(by: {
                        $0.version < $1.version
                    }) {
                        #expect(
                            file.contains(last.pattern.replacingOccurrences(of: "/", with: "\\/"))
                                || file.contains(last.pattern),
                            "\(host): the published file has \(team)'s last rule")
                    }
                }
            }

            let counts = try await w.withDatabase { db in
                try await db.client.withConnection { connection in
                    var counts: [String: Int] = [:]
                    let rows = try await connection.query(
                        "SELECT action, count(*)::int FROM audit_events GROUP BY action", logger: Logger(label: "t"))
                    for try await (action, count) in rows.decode((String, Int).self) { counts[action] = count }
                    return counts
                }
            }
            #expect(counts["rules.replace"] == t.writes.count, "one audit event per accepted write: \(counts)")
            #expect(counts["domain.publish"] == revisions, "one audit event per revision: \(counts)")
        }
    }
}
