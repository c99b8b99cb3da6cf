import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import AASATestSupport
import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing

/// Issue 50, section 1: database connections closed under real aasad processes, as a failover does
/// (`pg_terminate_backend`), idle and under traffic: the read model listens again, no request
/// waits past its statement's deadline, and SIGTERM ends aasad within its stated bound. (A whole
/// PostgreSQL restart is `FaultTests`.)
@Suite struct ConnectionFaultTests {
    static let app = "ABCDE12345.com.shop.app"
    /// `AppConfig.shutdownDrain` + `shutdownCancel`, and the slack of a loaded machine.
    static var shutdownBound: Duration { .seconds(25 + 10) }

    /// Terminates this database's backends that `filter` (SQL over pg_stat_activity) selects,
    /// from a connection of the test's own; answers how many.
    @discardableResult
    static func terminate(_ url: DatabaseURL, where filter: String = "true") async throws -> Int {
        try await TestDatabase.shared.withClient(url: url) { database in
            try await database.read(logger: Logger(label: "fault")) { session in
                try await session.first(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT count(pg_terminate_backend(pid))::bigint FROM pg_stat_activity
                            WHERE datname = current_database() AND pid <> pg_backend_pid() AND (\(filter))
                            """), as: Int.self) ?? 0
            }
        }
    }

    static let readModel = "query LIKE '%aasad read model%'"

    /// The replica's count of reads answered from memory.
    static func hits(_ server: ServerProcess) async throws -> Double {
        let metrics = String(decoding: try await Curl.get(server.baseURL + "/metrics").body, as: UTF8.self)
        return HardeningRound5Tests.metric(metrics, #"aasad_read_model_total{kind="answer",result="hit"}"#)
    }

    /// Whether the replica answers a repeated read from memory again: it is listening.
    static func answersFromMemory(_ server: ServerProcess, _ token: String) async throws -> Bool {
        let before = try await hits(server)
        for _ in 0..<2 { _ = try await Curl.call("GET", server.baseURL + "/v1/teams/shop/apps", token: token) }
        return try await hits(server) > before
    }

    /// A team with an app and its write token, through `server`.
    static func fixture(_ server: ServerProcess, admin: String) async throws -> String {
        let api = server.baseURL
        try #require(
            try await Curl.call("POST", api + "/v1/teams", token: admin, json: #"{"name":"shop"}"#).status == 201)
        let app = try await Curl.call("POST", api + "/v1/teams/shop/apps", token: admin, json: #"{"appID":"\#(app)"}"#)
        try #require(app.status == 201)
        let token = try await Curl.call(
            "POST", api + "/v1/teams/shop/tokens", token: admin, json: #"{"name":"t","scopes":["write"]}"#)
        let json = try JSONSerialization.jsonObject(with: Data(token.body)) as? [String: Any]
        return try #require(json?["secret"] as? String)
    }

    /// SIGTERM, then the time until the process is gone (nil: still running past the bound).
    static func stop(_ server: ServerProcess) async throws -> Duration? {
        let started = ContinuousClock.now
        kill(server.process.processIdentifier, SIGTERM)
        let gone = try await eventually(timeout: shutdownBound, every: .milliseconds(100)) {
            !server.process.isRunning
        }
        return gone ? ContinuousClock.now - started : nil
    }

    /// The listening connection of each of two replicas terminated while idle, then while both
    /// are under traffic: each replica listens again (its reads come from memory again), and
    /// SIGTERM then ends both within the bound. Before, the follower waited forever on a round
    /// trip PostgresNIO never completed, so the replica never listened again and ignored SIGTERM.
    @Test func theReadModelListensAgainAfterItsConnectionIsTerminated() async throws {
        try await TestDatabase.shared.withDatabase { url in
            let (a, b, admin) = try await ServerProcess.replicas(on: url)
            let token = try await Self.fixture(a, admin: admin)
            for server in [a, b] {
                #expect(try await eventually(timeout: .seconds(30)) { try await Self.answersFromMemory(server, token) })
            }

            // Idle.
            #expect(try await Self.terminate(url, where: Self.readModel) == 2, "one listener per replica")
            for server in [a, b] {
                let again = try await eventually(timeout: .seconds(30)) {
                    try await Self.answersFromMemory(server, token)
                }
                #expect(again, "listening again after an idle termination: \(server.output.suffix(1500))")
            }

            // Busy: both replicas read and written all along.
            let counts = LoadCounts()
            let load = Task {
                await withTaskGroup(of: Void.self) { group in
                    for (i, server) in [a, b, a, b].enumerated() {
                        group.addTask {
                            var n = 0
                            while !counts.stop.load(ordering: .relaxed) {
                                n += 1
                                let reply =
                                    i == 0 && n % 5 == 0
                                    ? try? await Curl.call(
                                        "PATCH", server.baseURL + "/v1/apps/\(Self.app)", token: token,
                                        json: n % 2 == 0
                                            ? #"{"services":["applinks"]}"# : #"{"services":["applinks","appclips"]}"#)
                                    : try? await Curl.call("GET", server.baseURL + "/v1/teams/shop/apps", token: token)
                                if let reply, reply.status != 0 {
                                    counts.answered.add(1, ordering: .relaxed)
                                } else {
                                    counts.unanswered.add(1, ordering: .relaxed)
                                }
                            }
                        }
                    }
                }
            }
            _ = try await eventually(timeout: .seconds(30)) { counts.answered.load(ordering: .relaxed) >= 20 }
            #expect(try await Self.terminate(url, where: Self.readModel) >= 1)
            for server in [a, b] {
                let again = try await eventually(timeout: .seconds(30)) {
                    try await Self.answersFromMemory(server, token)
                }
                #expect(again, "listening again after a busy termination: \(server.output.suffix(1500))")
            }
            counts.stop.store(true, ordering: .relaxed)
            await load.value
            #expect(counts.unanswered.load(ordering: .relaxed) == 0, "every request had an answer")

            for server in [a, b] {
                let took = try await Self.stop(server)
                #expect(took != nil, "SIGTERM ended aasad within \(Self.shutdownBound): \(server.output.suffix(1500))")
            }
        }
    }

    /// Every connection of one aasad terminated every 150 ms while four clients read and write: no
    /// request goes unanswered (each is answered, 503 with `Retry-After` when its connection went
    /// away), aasad serves again once the terminations stop, and SIGTERM ends it within the bound.
    /// Before, a request whose statement was sent as its connection closed never answered.
    @Test func noRequestHangsWhileConnectionsAreTerminated() async throws {
        try await TestDatabase.shared.withDatabase { url in
            let admin = try await WebhookProcessTests.admin(url)
            let server = try ServerProcess(database: url, environment: ["AASA_STATEMENT_DEADLINE_S": "3"])
            try await server.start()
            let token = try await Self.fixture(server, admin: admin)
            let api = server.baseURL

            let counts = LoadCounts()
            let terminator = Task {
                var rounds = 0
                while !counts.stop.load(ordering: .relaxed) {
                    rounds += (try? await Self.terminate(url)) ?? 0
                    try? await Task.sleep(for: .milliseconds(150))
                }
                return rounds
            }
            await withTaskGroup(of: Void.self) { group in
                for client in 0..<4 {
                    group.addTask {
                        for n in 0..<40 {
                            let reply =
                                client == 0
                                ? try? await Curl.call(
                                    "PATCH", api + "/v1/apps/\(Self.app)", token: token,
                                    json: n % 2 == 0
                                        ? #"{"services":["applinks"]}"# : #"{"services":["applinks","appclips"]}"#)
                                : try? await Curl.call(
                                    "GET", api + (client == 1 ? "/v1/teams" : "/v1/teams/shop/apps"), token: admin)
                            let status = reply?.status ?? 0
                            counts.statuses.withLock { $0.append(status) }
                            if status == 503,
                                reply?.headers["retry-after"] == nil
                                    || reply?.headers["content-type"] != "application/problem+json"
                            {
                                counts.problems.withLock { $0.append("503 without Retry-After or problem+json") }
                            }
                        }
                    }
                }
            }
            counts.stop.store(true, ordering: .relaxed)
            let terminated = await terminator.value
            let seen = counts.statuses.withLock { $0 }
            #expect(terminated > 0, "the terminations reached aasad's connections")
            #expect(!seen.contains(0), "every request was answered within curl's 10 s: \(seen)")
            #expect(
                Set(seen).isSubset(of: [200, 503]),
                "\(seen): \(server.output.split(separator: "\n").filter { $0.contains("error") }.prefix(5))")
            #expect(counts.problems.withLock { $0 }.isEmpty, "\(counts.problems.withLock { $0 })")
            let recovered = try await eventually(timeout: .seconds(30)) {
                try await Curl.call("GET", api + "/v1/teams", token: admin).status == 200
            }
            #expect(recovered, "serves again once the terminations stop: \(server.output.suffix(1500))")
            let took = try await Self.stop(server)
            #expect(took != nil, "SIGTERM ended aasad within \(Self.shutdownBound): \(server.output.suffix(2000))")
        }
    }
}

/// What the load of a fault test saw, shared by its clients.
private final class LoadCounts: Sendable {
    let stop = Atomic(false)
    let answered = Atomic(0)
    let unanswered = Atomic(0)
    let statuses = Mutex<[Int]>([])
    let problems = Mutex<[String]>([])
}
