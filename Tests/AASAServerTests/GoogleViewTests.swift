import AASAStore
import AASATestSupport
import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServer
@testable import AASAServices

/// Issue 42: Google's view of each Android package, against a stand-in for the Digital Asset Links
/// API (Tests/Support/aasa-origin.py, TLS with the test CA) that answers in the shapes of Google's
/// reference (`linked`, `maxAge`, `debugString`, `statements[].target.androidApp`).
@Suite struct GoogleViewTests {
    static let app = "com.shop.app"
    static let lite = "com.shop.lite"
    static let keyA = (0..<32).map { String(format: "%02X", $0) }.joined(separator: ":")
    static let keyB = (0..<32).map { String(format: "%02X", 255 - $0) }.joined(separator: ":")
    static let apiKey = "dal-key-\(UUID().uuidString)"

    static func configure(_ origin: ProbeTests.Origin) -> @Sendable (inout AppConfig) -> Void {
        { config in
            origin.configure(&config)
            config.dalBaseURL = "https://dal.test:\(origin.port)/v1/"
            config.dalAPIKey = apiKey
            config.googleRate = 200
            config.googleStaleAfter = .zero
        }
    }

    /// Google's answers: per package, the fingerprints it lists for https://shop.test.
    static func google(
        _ origin: ProbeTests.Origin, _ packages: [String: [String]], throttle: Int = 0, fail: Int = 0,
        retryAfter: Int? = nil, hosts: [String] = ["shop.test"], failing: [String] = []
    ) throws {
        var sites: [String: Any] = [:]
        for host in hosts { sites["https://\(host)"] = packages.mapValues { ["fingerprints": $0] } }
        var state: [String: Any] = [
            "sites": sites, "throttle": throttle, "fail": fail, "failSites": failing.map { "https://\($0)" },
        ]
        if let retryAfter { state["retryAfter"] = retryAfter }
        try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: origin.dir + "/dal.json"))
    }

    static func monitor(
        _ database: Database, _ origin: ProbeTests.Origin, tick: Duration, clock: ManualClock
    ) throws -> GoogleMonitor {
        var fetch = FetchConfig()
        origin.configure(fetch: &fetch)
        let api = DigitalAssetLinksAPI(
            fetcher: try OutboundClient(config: fetch), baseURL: "https://dal.test:\(origin.port)/v1/", apiKey: nil,
            requestsPerSecond: 200)
        return GoogleMonitor(
            database: database, api: api, interval: .seconds(3600), tick: tick, staleAfter: .zero,
            logger: Logger(label: "test"), clock: clock.clock)
    }

    /// shop.test with an iOS app and `packages` Android apps (each with key A), published.
    static func setUp(_ w: TestWorld, packages: [String]) async throws {
        try #require(try await w.createTeam("shop").status == 201)
        try #require(
            try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "shop.test"]).status == 201)
        try #require(
            try await w.call(
                .put, "/v1/domains/shop.test/grants/shop", token: w.adminToken, json: ["pathPrefixes": ["/"]]
            ).status == 200)
        for package in packages {
            let body: [String: Any] = ["appID": package, "platform": "android", "fingerprints": [keyA]]
            try #require(try await w.call(.post, "/v1/teams/shop/apps", token: w.adminToken, json: body).status == 201)
            try #require(
                try await w.call(
                    .put, "/v1/domains/shop.test/apps/\(package)/rules", token: w.adminToken,
                    json: ["rules": [["/": "/a/*"]]]
                ).status == 200)
        }
        try await publish(w)
    }

    static func publish(_ w: TestWorld) async throws {
        let reply = try await w.call(.post, "/v1/domains/shop.test/publish", token: w.adminToken, json: ["reason": "t"])
        try #require(reply.status == 201, "\(reply.text)")
    }

    static func check(_ w: TestWorld) async throws -> [String: [String: Any]] {
        let reply = try await w.call(.post, "/v1/domains/shop.test/google/check", token: w.adminToken)
        try #require(reply.status == 200, "\(reply.text)")
        return packages(reply)
    }

    static func packages(_ reply: TestWorld.Reply) -> [String: [String: Any]] {
        var out: [String: [String: Any]] = [:]
        for p in reply.object["packages"] as? [[String: Any]] ?? [] { out[p["package"] as? String ?? ""] = p }
        return out
    }

    static func events(_ w: TestWorld) async throws -> [String] {
        try await w.withDatabase { database in
            try await database.read(logger: Logger(label: "test")) {
                try await $0.all(
                    "SELECT name FROM webhook_events WHERE name LIKE 'google.%' ORDER BY id", as: String.self)
            }
        }
    }

    @Test func verifiedAndNotLinkedAreToldApartWithGooglesDebugString() async throws {
        let origin = try await offPool { try ProbeTests.Origin(hosts: ["shop.test", "dal.test"]) }
        try Self.google(origin, [Self.app: [Self.keyA]])
        try await TestWorld.run(configure: Self.configure(origin)) { w in
            try await Self.setUp(w, packages: [Self.app, Self.lite])
            let unchecked = Self.packages(
                try await w.call(.get, "/v1/domains/shop.test/google", token: w.adminToken))
            #expect(unchecked[Self.app]?["state"] as? String == "unknown")

            let packages = try await Self.check(w)
            #expect(packages[Self.app]?["state"] as? String == "verified", "\(packages)")
            #expect(packages[Self.app]?["googleFingerprints"] as? [String] == [Self.keyA])
            #expect(packages[Self.lite]?["state"] as? String == "not-linked")
            #expect(
                (packages[Self.lite]?["detail"] as? String)?.contains("No statements were found") == true,
                "\(packages)")
            // GET reads what was recorded; the API key went to Google and nowhere else.
            let read = Self.packages(try await w.call(.get, "/v1/domains/shop.test/google", token: w.adminToken))
            #expect(read[Self.app]?["state"] as? String == "verified")
            let requests = (try? String(contentsOfFile: origin.dir + "/dal-requests", encoding: .utf8)) ?? ""
            #expect(requests.contains(Self.apiKey) && requests.contains("com.shop.lite"))
            #expect(
                !(try await w.call(.get, "/v1/domains/shop.test/google", token: w.adminToken)).text.contains(
                    Self.apiKey))
            // The console's overview sums it up, a package not linked in red.
            let browser = ConsoleTests.Browser(w)
            _ = try await browser.signIn(w.adminToken)
            let overview = try await browser.get("/console").text
            #expect(
                overview.contains("href=\"/console/domains/shop.test/apple\" class=\"bad\">1 not-linked, 1 verified"),
                "\(overview)")
            // A read token sees Google's view and may not make aasad ask.
            let read2 = try await w.teamToken("shop", scopes: ["read"]).secret
            #expect(try await w.call(.get, "/v1/domains/shop.test/google", token: read2).status == 200)
            #expect(try await w.call(.post, "/v1/domains/shop.test/google/check", token: read2).status == 403)
        }
    }

    /// A new key published while Google still lists the old one: stale (with its lag and the
    /// keys Google lists), `google.stale` once; Google catches up: verified, `google.converged` once.
    @Test func aKeyChangeIsStaleUntilGoogleCatchesUpThenConverged() async throws {
        let origin = try await offPool { try ProbeTests.Origin(hosts: ["shop.test", "dal.test"]) }
        try Self.google(origin, [Self.app: [Self.keyA]])
        try await TestWorld.run(configure: Self.configure(origin)) { w in
            try await Self.setUp(w, packages: [Self.app])
            #expect(try await Self.check(w)[Self.app]?["state"] as? String == "verified")
            try #require(
                try await w.call(
                    .patch, "/v1/apps/\(Self.app)", token: w.adminToken, json: ["fingerprints": [Self.keyB]]
                ).status == 200)
            try await Self.publish(w)
            let stale = try await Self.check(w)[Self.app] ?? [:]
            #expect(stale["state"] as? String == "stale", "\(stale)")
            #expect(stale["googleFingerprints"] as? [String] == [Self.keyA] && stale["lagSeconds"] is Int)
            _ = try await Self.check(w)
            #expect(try await Self.events(w) == ["google.stale"], "told once per episode")

            try Self.google(origin, [Self.app: [Self.keyB]])
            #expect(try await Self.check(w)[Self.app]?["state"] as? String == "verified")
            _ = try await Self.check(w)
            #expect(try await Self.events(w) == ["google.stale", "google.converged"])
            let view = try await w.call(.get, "/v1/domains/shop.test/google", token: w.adminToken)
            let history = (view.object["history"] as? [[String: Any]] ?? []).compactMap { $0["state"] as? String }
            #expect(history == ["verified", "stale", "verified"], "\(history)")
            // The console's "Apple and Google" page says the same.
            let browser = ConsoleTests.Browser(w)
            _ = try await browser.signIn(w.adminToken)
            let page = try await browser.get("/console/domains/shop.test/apple").text
            #expect(
                page.contains("<code>com.shop.app</code>: <span class=\"state-verified\">verified</span>"), "\(page)")
            #expect(page.contains("Google&#39;s history") || page.contains("Google's history"))
            // The overview sums Google's view up per domain.
            let overview = try await browser.get("/console").text
            #expect(overview.contains("href=\"/console/domains/shop.test/apple\">verified</a>"), "\(overview)")
        }
    }

    /// A 429 from Google: the monitor's pass stops with nothing recorded and waits the 429's
    /// `Retry-After`; the next pass checks the domain; a publish makes it due again at the next
    /// tick. `POST …/google/check` says why in `checkError`, with nothing recorded.
    @Test func throttlingBacksOffAndLosesNothing() async throws {
        let origin = try await offPool { try ProbeTests.Origin(hosts: ["shop.test", "dal.test"]) }
        try Self.google(origin, [Self.app: [Self.keyA]], throttle: 1)
        try await TestWorld.run(configure: Self.configure(origin)) { w in
            try await Self.setUp(w, packages: [Self.app])
            let throttled = try await w.call(.post, "/v1/domains/shop.test/google/check", token: w.adminToken)
            #expect(
                throttled.status == 200 && (throttled.object["checkError"] as? String)?.contains("HTTP 429") == true)
            #expect(Self.packages(throttled)[Self.app]?["state"] as? String == "unknown", "nothing was recorded")
            try Self.google(origin, [Self.app: [Self.keyA]], throttle: 1, retryAfter: 1)
            try await w.withDatabase { database in
                let clock = ManualClock()
                let monitor = try Self.monitor(database, origin, tick: .seconds(600), clock: clock)
                let first = try await monitor.runPass()
                #expect(
                    first?.checked == 0 && first?.backedOff?.contains("HTTP 429") == true,
                    "\(String(describing: first))")
                // Retry-After (1 s), not the tick (10 minutes), holds the next pass.
                #expect(try await monitor.runPass() == nil, "held by Retry-After")
                clock.advance(by: .milliseconds(999))
                #expect(try await monitor.runPass() == nil, "held until Retry-After has passed")
                clock.advance(by: .milliseconds(1))
                #expect(try await monitor.runPass() == .init(checked: 1), "the pass after Retry-After checks it")
                #expect(try await monitor.runPass() == .init(checked: 0), "nothing due within the interval")
                try #require(
                    try await w.call(
                        .patch, "/v1/apps/\(Self.app)", token: w.adminToken, json: ["fingerprints": [Self.keyB]]
                    ).status == 200)
                try await Self.publish(w)
                #expect(try await monitor.runPass() == .init(checked: 1), "a publish makes the domain due")
            }
            let view = Self.packages(try await w.call(.get, "/v1/domains/shop.test/google", token: w.adminToken))
            #expect(view[Self.app]?["state"] as? String == "stale")
        }
    }

    /// Issue 50: Google answers 500 for one domain's site, always. The pass goes on: the others
    /// are verified or not linked as they should be, the failing one is `error` with the 500 and
    /// Google's message and is backed off alone, and it is verified on its own once Google answers.
    /// Before, the pass stopped at the first domain (the failing one, first by host every time) and
    /// no domain after it was ever checked.
    @Test func oneDomainGoogleFailsLeavesEveryOtherChecked() async throws {
        let origin = try await offPool { try ProbeTests.Origin(hosts: ["shop.test", "dal.test"]) }
        try Self.google(origin, [Self.app: [Self.keyA]], hosts: ["down.test", "shop.test"], failing: ["down.test"])
        try await TestWorld.run(configure: Self.configure(origin)) { w in
            try await Self.setUp(w, packages: [Self.app])
            for host in ["down.test", "nolink.test"] {
                try #require(
                    try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": host]).status == 201)
                try #require(
                    try await w.call(
                        .put, "/v1/domains/\(host)/grants/shop", token: w.adminToken, json: ["pathPrefixes": ["/"]]
                    ).status == 200)
                try #require(
                    try await w.call(
                        .put, "/v1/domains/\(host)/apps/\(Self.app)/rules", token: w.adminToken,
                        json: ["rules": [["/": "/a/*"]]]
                    ).status == 200)
                let published = try await w.call(
                    .post, "/v1/domains/\(host)/publish", token: w.adminToken, json: ["reason": "t"])
                try #require(published.status == 201, "\(published.text)")
            }
            @Sendable func state(_ host: String) async throws -> [String: Any] {
                Self.packages(try await w.call(.get, "/v1/domains/\(host)/google", token: w.adminToken))[Self.app]
                    ?? [:]
            }
            try await w.withDatabase { database in
                let clock = ManualClock()
                let monitor = try Self.monitor(database, origin, tick: .seconds(20), clock: clock)
                let first = try await monitor.runPass()
                #expect(
                    first?.checked == 3 && first?.failed == ["down.test"] && first?.backedOff == nil,
                    "\(String(describing: first))")
                #expect(try await state("shop.test")["state"] as? String == "verified")
                #expect(try await state("nolink.test")["state"] as? String == "not-linked")
                let down = try await state("down.test")
                #expect(down["state"] as? String == "error", "\(down)")
                let message = (down["message"] as? String ?? "") + (down["detail"] as? String ?? "")
                #expect(message.contains("HTTP 500") && message.contains("Internal error encountered"), "\(down)")
                // The failing domain waits alone (its first backoff is the tick, 20 s); the others
                // are not due within the interval.
                #expect(try await monitor.runPass() == .init(checked: 0))
                // Google answers again: the domain is verified once its own backoff has run out.
                try Self.google(origin, [Self.app: [Self.keyA]], hosts: ["down.test", "shop.test"])
                clock.advance(by: .seconds(19))
                #expect(try await monitor.runPass() == .init(checked: 0), "still backed off")
                clock.advance(by: .seconds(1))
                #expect(try await monitor.runPass() == .init(checked: 1), "its backoff ran out")
                #expect(try await state("down.test")["state"] as? String == "verified", "it recovers on its own")
            }
        }
    }
}
