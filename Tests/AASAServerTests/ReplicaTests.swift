import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import AASATestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// Several `aasad` processes on one PostgreSQL, and a publish interrupted by kill -9.
@Suite struct ReplicaTests {
    static let app = "ABCDE12345.com.own.app"

    /// Team, app, domain (with `webRoots`) and a grant, through `server`'s API.
    static func setUp(_ server: ServerProcess, admin: String, webRoots: [String]) async throws {
        let api = server.baseURL
        #expect(try await Curl.call("POST", api + "/v1/teams", token: admin, json: #"{"name":"own"}"#).status == 201)
        #expect(
            try await Curl.call("POST", api + "/v1/teams/own/apps", token: admin, json: #"{"appID":"\#(app)"}"#).status
                == 201)
        let roots = webRoots.map { "\"\($0)\"" }.joined(separator: ",")
        #expect(
            try await Curl.call(
                "POST", api + "/v1/domains", token: admin, json: #"{"host":"example.com","webRoots":[\#(roots)]}"#
            ).status == 201)
        #expect(
            try await Curl.call(
                "PUT", api + "/v1/domains/example.com/grants/own", token: admin, json: #"{"pathPrefixes":["/"]}"#
            ).status == 200)
    }

    /// Two `aasad` processes on one database, an admin token, and the fixtures made through the first.
    static func twoReplicas(_ url: DatabaseURL) async throws -> (admin: String, a: ServerProcess, b: ServerProcess) {
        let admin = try await TestDatabase.shared.withClient(url: url) {
            try await TestWorld.makeToken($0, teamID: nil, scopes: [.admin], name: "replica test")
        }
        let a = try ServerProcess(database: url)
        let b = try ServerProcess(database: url)
        try await a.start()
        try await b.start()
        try await setUp(a, admin: admin, webRoots: [])
        return (admin, a, b)
    }

    static func putRules(_ server: ServerProcess, admin: String, path: String) async throws -> Int {
        try await Curl.call(
            "PUT", server.baseURL + "/v1/domains/example.com/apps/\(app)/rules", token: admin,
            json: #"{"rules":[{"/":"\#(path)"}]}"#
        ).status
    }

    static func publish(_ server: ServerProcess, admin: String, reason: String) async throws -> Curl.Reply {
        try await Curl.call(
            "POST", server.baseURL + "/v1/domains/example.com/publish", token: admin, json: #"{"reason":"\#(reason)"}"#)
    }

    static func served(_ server: ServerProcess) async throws -> [UInt8]? {
        let reply = try await Curl.get(server.baseURL + "/.well-known/apple-app-site-association", host: "example.com")
        return reply.status == 200 ? reply.body : nil
    }

    /// Waits until `server` serves `bytes`; returns how long it took.
    static func waitUntilServed(_ server: ServerProcess, _ bytes: [UInt8]) async throws -> Duration? {
        let start = ContinuousClock.now
        guard try await eventually(timeout: .milliseconds(2500), { try await served(server) == bytes }) else {
            return nil
        }
        return ContinuousClock.now - start
    }

    @Test func replicasFollowEachOthersRevisions() async throws {
        try await TestDatabase.shared.withDatabase { url in
            let (admin, a, b) = try await Self.twoReplicas(url)
            #expect(try await Self.putRules(a, admin: admin, path: "/one/*") == 200)
            #expect(try await Self.publish(a, admin: admin, reason: "on a").status == 201)
            let first = try #require(try await Self.served(a))
            #expect(try await Self.waitUntilServed(b, first) != nil, "replica b never served revision 1")

            #expect(try await Self.putRules(b, admin: admin, path: "/two/*") == 200)
            #expect(try await Self.publish(b, admin: admin, reason: "on b").status == 201)
            let second = try #require(try await Self.served(b))
            #expect(second != first)
            #expect(try await Self.waitUntilServed(a, second) != nil, "replica a never served revision 2")

            // Both publish at once: serialised, so the numbers stay unique and consecutive.
            #expect(try await Self.putRules(a, admin: admin, path: "/three/*") == 200)
            async let x = Task.detached { try await Self.publish(a, admin: admin, reason: "race a").status }.value
            async let y = Task.detached { try await Self.publish(b, admin: admin, reason: "race b").status }.value
            #expect(try await [x, y].sorted() == [200, 201])
            let numbers = try await TestDatabase.shared.withClient(url: url) { db in
                try await db.read(logger: Logger(label: "t")) {
                    try await $0.all("SELECT number FROM revisions ORDER BY number", as: Int.self)
                }
            }
            #expect(numbers == [1, 2, 3])

            // A replica started now serves the file on its first request: the load runs before the
            // port opens (before, a load balancer could send a request into a replica still loading).
            let c = try ServerProcess(database: url)
            try await c.start()
            #expect(try await Self.served(c) != nil, "a new replica answered 404 before its first load")
        }
    }

    /// assetlinks.json follows between replicas like the AASA: published on one, served by the other.
    @Test func replicasFollowEachOthersAssetLinks() async throws {
        try await TestDatabase.shared.withDatabase { url in
            let (admin, a, b) = try await Self.twoReplicas(url)
            #expect(
                try await Curl.call(
                    "POST", a.baseURL + "/v1/teams/own/apps", token: admin,
                    json: """
                        {"appID":"com.own.app","platform":"android","fingerprints":["\(AndroidTests.upload)"],\
                        "rulesFrom":"\(Self.app)"}
                        """
                ).status == 201)
            #expect(try await Self.putRules(a, admin: admin, path: "/one/*") == 200)
            #expect(try await Self.publish(a, admin: admin, reason: "both files").status == 201)
            func android(_ server: ServerProcess) async throws -> [UInt8]? {
                let reply = try await Curl.get(server.baseURL + "/.well-known/assetlinks.json", host: "example.com")
                return reply.status == 200 ? reply.body : nil
            }
            let published = try #require(try await android(a))
            #expect(String(decoding: published, as: UTF8.self).contains("com.own.app"))
            let followed = try await eventually(timeout: .milliseconds(2500)) { try await android(b) == published }
            #expect(followed, "replica b never served assetlinks.json revision 1")
        }
    }

    /// kill -9 while publishing in a loop: the web root holds one revision's complete bytes, the
    /// database is consistent, and after a restart reconciliation makes them agree.
    @Test func killDashNineDuringPublishLeavesOldOrNewFile() async throws {
        try await TestDatabase.shared.withDatabase { url in
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-kill-\(UUID().uuidString)")
                .path
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: root) }
            let admin = try await TestDatabase.shared.withClient(url: url) {
                try await TestWorld.makeToken($0, teamID: nil, scopes: [.admin], name: "kill test")
            }
            let server = try ServerProcess(database: url)
            try await server.start()
            try await Self.setUp(server, admin: admin, webRoots: [root])

            let publisher = Task.detached {
                for i in 0..<200 {
                    guard (try? await Self.putRules(server, admin: admin, path: "/round\(i)/*")) == 200 else { return }
                    _ = try? await Self.publish(server, admin: admin, reason: "round \(i)")
                }
            }
            // Kill once a publish has finished (the test needs one revision), not after a guessed delay.
            let published = try await eventually(timeout: .seconds(30)) {
                (try? await TestDatabase.shared.withClient(url: url) { db in
                    try await db.read(logger: Logger(label: "t")) {
                        let newest: Int? = try await $0.first(
                            "SELECT coalesce(max(number), 0) FROM revisions", as: Int.self)
                        return newest ?? 0
                    }
                }).map { $0 >= 2 } ?? false
            }
            #expect(published, "a publish finished before the kill")
            server.killHard()
            await publisher.value

            let file = FileManager.default.contents(atPath: root + "/.well-known/apple-app-site-association").map {
                [UInt8]($0)
            }
            let (revisions, current) = try await TestDatabase.shared.withClient(url: url) { db in
                try await db.read(logger: Logger(label: "t")) { session in
                    let all = try await session.all("SELECT encode(bytes, 'hex') FROM revisions", as: String.self)
                    let current: Int? = try await session.first(
                        "SELECT coalesce(current_revision, 0) FROM domains WHERE host = 'example.com'", as: Int.self)
                    return (Set(all), current.flatMap { $0 > 0 ? $0 : nil })
                }
            }
            let currentNumber = try #require(current, "no revision was published before the kill")
            #expect(revisions.count == currentNumber, "revisions are numbered 1…current with no gap")
            if let file {
                #expect(
                    revisions.contains(file.map { String(format: "%02x", $0) }.joined()),
                    "the web root holds a complete published revision")
            }

            // Restart: start-up reconciliation makes the web root equal the current revision.
            let restarted = try ServerProcess(database: url)
            try await restarted.start()
            let expected = try await Curl.call(
                "GET", restarted.baseURL + "/v1/domains/example.com/revisions/\(currentNumber)/file", token: admin
            ).body
            let agreed = try await eventually(every: .milliseconds(100)) {
                FileManager.default.contents(atPath: root + "/.well-known/apple-app-site-association").map {
                    [UInt8]($0)
                } == expected
            }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: root + "/.well-known").filter {
                $0.hasSuffix(".tmp")
            }
            #expect(leftovers.isEmpty, "reconciliation removes temporary files a killed writer left")
            #expect(agreed, "after restart the web root equals revision \(currentNumber): \(restarted.output)")
        }
    }
}
