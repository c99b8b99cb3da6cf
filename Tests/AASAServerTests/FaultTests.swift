import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import AASATestSupport
import Foundation
import Testing

/// Faults outside the process: PostgreSQL itself stopped and started again under traffic. The
/// test runs its own PostgreSQL cluster (through `scripts/postgres`, on its own port and data
/// directory), so stopping it cannot disturb the other tests.
@Suite struct FaultTests {
    struct Cluster {
        let port: Int
        let data: String
        var url: String { "postgres://aasa@127.0.0.1:\(port)/aasa" }

        /// Runs `scripts/postgres args` for this cluster, waiting off the concurrency pool.
        func script(_ args: String...) async throws -> String {
            try await offPool { try blockingScript(args) }
        }

        private func blockingScript(_ args: [String]) throws -> String {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: TestDatabase.repositoryRoot + "/scripts/postgres")
            p.arguments = args
            var env = ProcessInfo.processInfo.environment
            env["AASA_PG_PORT"] = String(port)
            env["AASA_PG_DATA"] = data
            env["AASA_PG_FAST"] = "1"
            p.environment = env
            // A file, not a pipe: the PostgreSQL server it starts outlives it and could keep a
            // pipe's write end open, so reading to the end would never finish.
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("pg-\(UUID().uuidString)")
            _ = FileManager.default.createFile(atPath: out.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: out) }
            p.standardOutput = try FileHandle(forWritingTo: out)
            p.standardError = FileHandle.nullDevice
            try p.launchSerialized()
            p.waitUntilExit()
            let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            guard p.terminationStatus == 0 else {
                throw CLIFailure("scripts/postgres \(args) exited \(p.terminationStatus)")
            }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    struct CLIFailure: Error {
        var message: String
        init(_ m: String) { message = m }
    }

    /// Runs `aasad` with `args` on `url` and returns its standard output.
    static func aasad(_ args: [String], url: String) async throws -> String {
        try await offPool { try blockingAasad(args, url: url) }
    }

    static func blockingAasad(_ args: [String], url: String) throws -> String {
        var env = ProcessInfo.processInfo.environment
        env["DATABASE_URL"] = url
        env["AASA_MIGRATIONS_DIR"] = TestDatabase.migrationsDirectory
        return String(decoding: try Spawn.run(try ProcessTests.binary(), args, environment: env).out, as: UTF8.self)
    }

    @Test func postgresStoppedAndStartedUnderTraffic() async throws {
        let cluster = Cluster(port: try FreePort.pick(), data: "/tmp/aasa-pg-fault-\(UUID().uuidString.prefix(8))")
        _ = try await cluster.script()
        defer {
            // Synchronous cleanup: stop the cluster and remove its files.
            let stop = Process()
            stop.executableURL = URL(fileURLWithPath: TestDatabase.repositoryRoot + "/scripts/postgres")
            stop.arguments = ["stop"]
            stop.environment = ProcessInfo.processInfo.environment.merging(
                ["AASA_PG_PORT": String(cluster.port), "AASA_PG_DATA": cluster.data]) { $1 }
            stop.standardOutput = FileHandle.nullDevice
            stop.standardError = FileHandle.nullDevice
            try? stop.launchSerialized()
            DispatchQueue.global().async {
                stop.waitUntilExit()
                try? FileManager.default.removeItem(atPath: cluster.data)
            }
        }
        _ = try await Self.aasad(["migrate"], url: cluster.url)
        let token = try #require(
            try await Self.aasad(["token", "create", "--admin", "--name", "fault test"], url: cluster.url)
                .split(whereSeparator: \.isWhitespace).map(String.init).last { $0.hasPrefix("aasa_") })
        let server = try ServerProcess(database: try DatabaseURL(cluster.url))
        try await server.start()
        let api = server.baseURL
        #expect(try await Curl.call("POST", api + "/v1/teams", token: token, json: #"{"name":"shop"}"#).status == 201)

        // Traffic before, during and after the outage; every answer must come back in time.
        let stopped = ContinuousClock.now
        _ = try await cluster.script("stop")
        var outage: [Int] = []
        for _ in 0..<3 {
            let start = ContinuousClock.now
            let reply = try await Curl.call("GET", api + "/v1/teams", token: token)
            #expect(ContinuousClock.now - start < .seconds(9), "a request hung while PostgreSQL was down")
            outage.append(reply.status)
            if reply.status == 503 {
                #expect(reply.headers["content-type"] == "application/problem+json")
            }
        }
        #expect(outage.allSatisfy { $0 == 503 }, "answers while PostgreSQL was down: \(outage)")
        let ready = try await Curl.get(api + "/health/ready")
        #expect(ready.status == 503)
        #expect(try await Curl.get(api + "/health/live").status == 200, "the process itself is alive")

        _ = try await cluster.script()
        var recovered: Duration?
        if try await eventually(
            timeout: .seconds(10), every: .milliseconds(100),
            { try await Curl.call("GET", api + "/v1/teams", token: token).status == 200 })
        {
            recovered = ContinuousClock.now - stopped
        }
        #expect(recovered != nil, "aasad did not recover after PostgreSQL came back: \(server.output.suffix(2000))")
        let created = try await Curl.call("POST", api + "/v1/teams", token: token, json: #"{"name":"news"}"#)
        #expect(created.status == 201, "\(created.status) \(String(decoding: created.body, as: UTF8.self))")
        #expect(try await Curl.get(api + "/health/ready").status == 200)
        #expect(server.process.isRunning, "aasad recovered without a restart")
        // Issue 50: the read model listens again after the restart (its reads come from memory
        // again), and SIGTERM still ends aasad within its bound.
        let app = try await Curl.call(
            "POST", api + "/v1/teams/shop/apps", token: token, json: #"{"appID":"\#(ConnectionFaultTests.app)"}"#)
        #expect(app.status == 201)
        let listening = try await eventually(timeout: .seconds(30)) {
            try await ConnectionFaultTests.answersFromMemory(server, token)
        }
        #expect(listening, "the read model listens again after a restart: \(server.output.suffix(2000))")
        let took = try await ConnectionFaultTests.stop(server)
        #expect(took != nil, "SIGTERM ended aasad within its bound after a restart: \(server.output.suffix(2000))")
    }
}
