import AASAModel
import AASAStore
import AASATestSupport
import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing

/// The README's rolling upgrade, as it runs: two replicas behind nginx (one upstream with both)
/// under steady reads and writes; the next release's migration applied under them; then each
/// replica stopped with SIGTERM and started again as the next release, in turn. No read fails; every
/// write carries an Idempotency-Key and either succeeds or is told to retry and succeeds on a retry
/// with the same key; none is applied twice and none is lost.
@Suite struct RollingUpgradeTests {
    /// What the load saw, shared by its loops and the procedure.
    final class Load: Sendable {
        let reads = Atomic<Int>(0)
        let failedReads = Mutex<[String]>([])
        let writes = Mutex<[String]>([])
        let lostWrites = Mutex<[String]>([])
        let retriedWrites = Atomic<Int>(0)
        let done = Atomic<Bool>(false)

        var writeCount: Int { writes.withLock { $0.count } }

        /// Waits until the load has moved on by `reads` reads and `writes` writes from now, so each
        /// step of the procedure runs under load, not beside an idle proxy.
        func advance(reads more: Int, writes moreWrites: Int) async throws -> Bool {
            let readTarget = reads.load(ordering: .relaxed) + more
            let writeTarget = writeCount + moreWrites
            return try await eventually(timeout: .seconds(120)) {
                reads.load(ordering: .relaxed) >= readTarget && writeCount >= writeTarget
            }
        }
    }

    static let readBound = 2000
    static let writeBound = 600

    /// The README's upstream for a rolling restart: `max_fails=0`, so a replica that refused a
    /// connection while it restarted is not shunned for `fail_timeout` (10 s) after it is back.
    /// Otherwise the next replica's stop finds both marked down and nginx answers 502 ("no live
    /// upstreams"), as this test saw before the setting.
    static func site(ports: [Int]) -> String {
        """
        upstream aasad {
            \(ports.map { "server 127.0.0.1:\($0) max_fails=0;" }.joined(separator: "\n    "))
            keepalive 16;
        }
        server {
            listen 80;
            location / {
                proxy_pass http://aasad;
                proxy_http_version 1.1;
                proxy_set_header Connection "";
                proxy_set_header Host $host;
            }
        }
        """
    }

    /// Reads through the proxy, alternating the API and the served file, until the procedure ends.
    static func readLoop(_ proxy: String, admin: String, load: Load) async throws {
        var turn = 0
        while !load.done.load(ordering: .relaxed) && !Task.isCancelled
            && load.reads.load(ordering: .relaxed) < readBound
        {
            turn += 1
            let reply =
                turn % 2 == 0
                ? try await Curl.get(proxy + "/v1/teams/own/apps", headers: ["Authorization": "Bearer \(admin)"])
                : try await Curl.get(proxy + "/.well-known/apple-app-site-association", host: "example.com")
            if reply.status != 200 {
                let what = turn % 2 == 0 ? "API read" : "served file"
                let body = String(decoding: reply.body.prefix(200), as: UTF8.self)
                load.failedReads.withLock { $0.append("\(what): \(reply.status) (curl \(reply.exit)) \(body)") }
            }
            load.reads.add(1, ordering: .relaxed)
        }
    }

    /// Whether an answer tells the client to send the same request again, with the same key.
    static func saysRetry(_ reply: Curl.Reply) -> Bool {
        switch reply.status {
        case 0, 502, 503, 504: true
        case 409: String(decoding: reply.body, as: UTF8.self).contains("in-progress")
        default: false
        }
    }

    /// App creates through the proxy, each with its own Idempotency-Key, retried with that key
    /// while the answer says to retry.
    static func writeLoop(_ proxy: String, admin: String, load: Load, writer: Int) async throws {
        var number = 0
        while !load.done.load(ordering: .relaxed) && !Task.isCancelled && number < writeBound {
            number += 1
            let appID = "ABCDE12345.com.own.w\(writer)n\(number)"
            var outcome = ""
            for attempt in 1...30 {
                let reply = try await Curl.get(
                    proxy + "/v1/teams/own/apps",
                    headers: [
                        "Authorization": "Bearer \(admin)", "Content-Type": "application/json",
                        "Idempotency-Key": "rolling-\(writer)-\(number)",
                    ], method: "POST", body: #"{"appID":"\#(appID)"}"#)
                if reply.status == 201 {
                    outcome = ""
                    break
                }
                outcome =
                    "\(reply.status) (curl \(reply.exit)) \(String(decoding: reply.body.prefix(300), as: UTF8.self))"
                guard saysRetry(reply) else { break }
                load.retriedWrites.add(1, ordering: .relaxed)
                try await Task.sleep(for: .milliseconds(50 * attempt))
            }
            if outcome.isEmpty {
                load.writes.withLock { $0.append(appID) }
            } else {
                load.lostWrites.withLock { $0.append("\(appID): \(outcome)") }
            }
        }
    }

    @Test func aRollingUpgradeUnderLoadLosesNothing() async throws {
        try await TestDatabase.shared.withDatabase { url in
            let admin = try await WebhookProcessTests.admin(url)
            var replicas = [try ServerProcess(database: url), try ServerProcess(database: url)]
            for replica in replicas { try await replica.start() }
            let ports = replicas.map(\.port)
            try await ReplicaTests.setUp(replicas[0], admin: admin, webRoots: [])
            #expect(try await ReplicaTests.putRules(replicas[0], admin: admin, path: "/shop/*") == 200)
            #expect(try await ReplicaTests.publish(replicas[0], admin: admin, reason: "before").status == 201)
            let published = try #require(try await ReplicaTests.served(replicas[0]))
            #expect(try await ReplicaTests.waitUntilServed(replicas[1], published) != nil)

            let nginx = try NginxTests.Nginx(site: Self.site(ports: ports))
            try await nginx.start()
            let proxy = "http://127.0.0.1:\(nginx.port)"
            let next = try NextRelease(["0099_next_release.sql": NextRelease.expand])
            defer { next.remove() }

            // Two readers and two writers at once, so that requests are in flight whenever a
            // replica is told to stop.
            let load = Load()
            async let reading: Void = withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<2 { group.addTask { try await Self.readLoop(proxy, admin: admin, load: load) } }
                try await group.waitForAll()
            }
            async let writing: Void = withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<2 {
                    group.addTask { try await Self.writeLoop(proxy, admin: admin, load: load, writer: writer) }
                }
                try await group.waitForAll()
            }

            // 1. The next release's migration, under the running release.
            #expect(try await load.advance(reads: 60, writes: 10))
            _ = try await next.migrate(url)
            for replica in replicas {
                let ready = try await UpgradeRollbackTests.readiness(replica)
                #expect(ready.status == 200, "an old replica left the Service after an expand step: \(ready.body)")
            }
            #expect(try await load.advance(reads: 60, writes: 10))

            // 2. Each replica in turn: SIGTERM, then the next release on the same address.
            for index in replicas.indices {
                #expect(try await replicas[index].stopGracefully() == 0, "\(replicas[index].output)")
                let upgraded = try ServerProcess(
                    database: url, environment: ["AASA_MIGRATIONS_DIR": next.directory], listenPort: ports[index])
                try await upgraded.start()
                #expect(try await UpgradeRollbackTests.readiness(upgraded).status == 200)
                replicas[index] = upgraded
                #expect(try await load.advance(reads: 60, writes: 10))
            }
            load.done.store(true, ordering: .relaxed)
            try await reading
            try await writing

            let failedReads = load.failedReads.withLock { $0 }
            let lost = load.lostWrites.withLock { $0 }
            let written = load.writes.withLock { $0 }
            print(
                """
                rolling upgrade: \(load.reads.load(ordering: .relaxed)) reads (\(failedReads.count) failed), \
                \(written.count) writes (\(lost.count) lost, \(load.retriedWrites.load(ordering: .relaxed)) retries)
                """)
            let proxyLog = (try? String(contentsOfFile: nginx.directory + "/error.log", encoding: .utf8)) ?? ""
            #expect(
                failedReads.count == 0,
                "\(failedReads.count) failed, first: \(failedReads.prefix(3)); nginx: \(proxyLog.suffix(1500))")
            #expect(lost.count == 0, "\(lost.count) lost, first: \(lost.prefix(3)); nginx: \(proxyLog.suffix(1500))")

            // Each write that succeeded is there once, and audited once: none lost, none doubled.
            let (apps, doubled) = try await TestDatabase.shared.withClient(url: url) { db in
                try await db.read(logger: Logger(label: "t")) { session in
                    let apps = try await session.all(
                        "SELECT app_id FROM apps WHERE app_id LIKE 'ABCDE12345.com.own.w%' ORDER BY app_id",
                        as: String.self)
                    let doubled = try await session.all(
                        """
                        SELECT app_id FROM audit_events WHERE action = 'app.create' \
                        AND app_id LIKE 'ABCDE12345.com.own.w%' GROUP BY app_id HAVING count(*) > 1
                        """, as: String.self)
                    return (apps, doubled)
                }
            }
            #expect(Set(apps) == Set(written), "lost: \(Set(written).subtracting(apps))")
            #expect(doubled.isEmpty, "applied twice: \(doubled)")
        }
    }
}
