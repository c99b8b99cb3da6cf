import AASAStore
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

/// Issue 24: the findings of the third outside security probe, each through the API against
/// PostgreSQL.
@Suite struct HardeningRound3Tests {
    static let expectations = GoldenURLTests.expectations

    /// Finding 1: blog (holding /blog and /shop/sale) cannot pin shop's /shop paths, whatever the
    /// kind, by the API or by a manifest; shop then writes /shop freely. An admin may pin anything.
    @Test func aTeamPinsOnlyURLsInsideItsOwnGrant() async throws {
        try await TestWorld.run { w in
            let (shop, blog) = try await GoldenURLTests.setUp(w)
            let attempts: [(String, String?, String)] = [
                ("https://example.com/shop/1", nil, "draft"), ("https://example.com/shop/2", nil, "published"),
            ]
            for (url, app, source) in attempts {
                let reply = try await GoldenURLTests.expect(w, token: blog, url, "opensNone", app: app, source: source)
                #expect(reply.status == 422, "\(reply.text)")
                #expect(reply.problemFields == ["/url"] && reply.problemRules == ["grant"], "\(reply.text)")
            }
            let notApp = try await GoldenURLTests.expect(
                w, token: blog, "https://example.com/shop/3", "notApp", app: GoldenURLTests.shopApp)
            #expect(notApp.status == 422 && notApp.problemRules == ["grant"], "\(notApp.text)")
            // Inside its own grant (/shop/sale is blog's) every kind still works.
            let own = try await GoldenURLTests.expect(
                w, token: blog, "https://example.com/shop/sale/1", "notApp", app: GoldenURLTests.shopApp)
            #expect(own.status == 422 && own.problemRules == ["already-broken"], "\(own.text)")
            let ownNone = try await GoldenURLTests.expect(
                w, token: blog, "https://example.com/blog/x", "notApp",
                app: GoldenURLTests.shopApp)
            #expect(ownNone.status == 201, "\(ownNone.text)")
            #expect(ownNone.object["outOfGrant"] as? Bool == false && ownNone.object["adminPinned"] as? Bool == false)
            // The same through a manifest's expect:.
            let manifest: [String: Any] = [
                "apps": [["appID": GoldenURLTests.blogApp]],
                "domains": [
                    [
                        "host": "example.com",
                        "apps": [["appID": GoldenURLTests.blogApp, "rules": [["/": "/blog/*"]]]],
                        "expect": [["url": "https://example.com/shop/9", "kind": "opensNone"]],
                    ]
                ],
            ]
            let applied = try await w.call(.post, "/v1/teams/blog/manifest", token: blog, json: manifest)
            #expect(applied.status == 422, "\(applied.text)")
            #expect(applied.problemFields.contains("/domains/0/expect/0/url") && applied.problemRules.contains("grant"))
            // Nothing of blog's blocks shop inside shop's grant.
            let write = try await w.call(
                .put, GoldenURLTests.rules(GoldenURLTests.shopApp), token: shop,
                json: ["rules": [["/": "/shop/*"], ["/": "/deals/*"]]])
            #expect(write.status == 200, "\(write.text)")
            // An admin may pin a URL outside the team's grant, and it binds.
            let pinned = try await w.call(
                .post, Self.expectations, token: w.adminToken,
                json: [
                    "url": "https://example.com/deals/1", "kind": "opens", "team": "shop",
                    "appID": GoldenURLTests.shopApp,
                ])
            #expect(pinned.status == 201, "\(pinned.text)")
            let adminNone = try await w.call(
                .post, Self.expectations, token: w.adminToken,
                json: ["url": "https://example.com/shop/new", "kind": "opensNone", "team": "blog"])
            #expect(adminNone.status == 422 && adminNone.problemRules == ["already-broken"], "\(adminNone.text)")
            let adminOutside = try await w.call(
                .post, Self.expectations, token: w.adminToken,
                json: ["url": "https://example.com/other/1", "kind": "opensNone", "team": "blog"])
            #expect(adminOutside.status == 201, "\(adminOutside.text)")
            #expect(adminOutside.object["adminPinned"] as? Bool == true)
            #expect(adminOutside.object["outOfGrant"] as? Bool == false)
        }
    }

    /// Finding 1, what already exists: an expectation made before the rule (written here as an
    /// older release stored it) outside its team's grant is shown `outOfGrant` and no longer
    /// blocks the team that holds the path; it is still evaluated.
    @Test func existingOutOfGrantExpectationsStopBlocking() async throws {
        try await TestWorld.run { w in
            let (shop, blog) = try await GoldenURLTests.setUp(w)
            try await w.withDatabase { database in
                try await database.transaction(logger: Logger(label: "test")) { session in
                    guard let domain = try await session.domain(host: "example.com"),
                        let team = try await session.team(named: "blog")
                    else { throw POSIXError(.ENOENT) }
                    try await session.saveExpectation(
                        ExpectationRecord(
                            id: UUID(), domainID: domain.id, teamID: team.id, teamName: "blog",
                            url: "https://example.com/shop/frozen", kind: "opensNone", appID: nil, source: "draft",
                            description: nil, draftApp: GoldenURLTests.shopApp))
                }
            }
            let list = try await w.call(.get, Self.expectations, token: blog)
            let frozen = (list.object["items"] as? [[String: Any]] ?? []).first {
                $0["url"] as? String == "https://example.com/shop/frozen"
            }
            #expect(frozen?["outOfGrant"] as? Bool == true, "\(list.text)")
            // shop keeps opening /shop/frozen with /shop/* and may change its rules there.
            let write = try await w.call(
                .put, GoldenURLTests.rules(GoldenURLTests.shopApp), token: shop,
                json: ["rules": [["/": "/shop/frozen"], ["/": "/shop/*"]]])
            #expect(write.status == 200, "\(write.text)")
            let check = try await w.call(.get, Self.expectations + "/check", token: blog)
            #expect(check.status == 200, "\(check.text)")
        }
    }

    /// Finding 2: hosts that can never be associated domains are refused, naming the field.
    @Test func domainHostsMustBePublicDNSNames() async throws {
        try await TestWorld.run { w in
            for host in ["127.0.0.1", "10.0.0.8", "0x7f.1", "2130706433", "localhost", "intranet", "app.localhost"] {
                let reply = try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": host])
                #expect(reply.status == 422, "\(host): \(reply.text)")
                #expect(reply.problemFields == ["/host"] && reply.problemRules == ["host"], "\(host): \(reply.text)")
            }
            let ipv6 = try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "[::1]"])
            #expect(ipv6.status == 422)
            #expect(
                try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "example.com"]).status
                    == 201)
            #expect(
                try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "shop.example.test"])
                    .status == 201)
            let alias = try await w.call(
                .patch, "/v1/domains/example.com", token: w.adminToken,
                json: ["aliases": ["www.example.com", "10.1.2.3"]])
            #expect(alias.status == 422 && alias.problemFields == ["/aliases/1"], "\(alias.text)")
            let list = try await w.call(.get, "/v1/domains", token: w.adminToken)
            #expect((list.object["items"] as? [Any])?.count == 2)
        }
    }

    /// Finding 2: the address rule, on addresses in every spelling the resolver may answer.
    @Test func privateAddressesAreRecognised() {
        for address in [
            "127.0.0.1", "10.0.0.8", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
            "::1", "::", "fd00::1", "fe80::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a00:1", "ff02::1",
        ] {
            #expect(AddressPolicy.isPrivate(address), "\(address)")
        }
        for address in ["93.184.216.34", "17.253.144.10", "2606:2800:220:1:248:1893:25c8:1946", "8.8.8.8"] {
            #expect(!AddressPolicy.isPrivate(address), "\(address)")
        }
    }

    /// Finding 2: a domain whose name resolves to a private address is not fetched (P004), by the
    /// probe or the CDN check, unless the operator allows it.
    @Test func theProbeRefusesPrivateAddressesAfterResolution() async throws {
        let resolved = ["internal.example.com": "10.0.0.8", "loop.example.com": "127.0.0.1"]
        let configure: @Sendable (inout AppConfig) -> Void = { config in
            config.fetch.lookup = { host in
                guard let address = resolved[host] else {
                    throw SystemResolver.ResolveError(host: host, reason: "test")
                }
                return [address]
            }
            config.fetch.cdnBaseURL = "https://loop.example.com/a/v1/"
        }
        try await TestWorld.run(configure: configure) { w in
            for host in resolved.keys.sorted() {
                #expect(try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": host]).status == 201)
                let probe = try await w.call(.post, "/v1/domains/\(host)/probe", token: w.adminToken)
                #expect(probe.status == 200, "\(probe.text)")
                let codes = (probe.object["results"] as? [[String: Any]] ?? []).flatMap {
                    ($0["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
                }
                #expect(!codes.isEmpty && codes.allSatisfy { $0 == "P004" }, "\(host): \(probe.text)")
                #expect(probe.text.contains("resolves to \(resolved[host]!)"))
            }
            let cdn = try await w.call(.post, "/v1/domains/internal.example.com/cdn/check", token: w.adminToken)
            #expect(cdn.status == 200, "\(cdn.text)")
            #expect(
                (cdn.object["detail"] as? String ?? "").contains("P004") || cdn.text.contains("private"), "\(cdn.text)")
        }
        // With the operator's flag the address is used (nothing listens there: another failure).
        var config = FetchConfig()
        config.allowPrivate = true
        config.port = try FreePort.pick()
        config.timeout = .seconds(2)
        config.lookup = { _ in ["127.0.0.1"] }
        let fetched = await (try OutboundClient(config: config)).fetch("https://loop.example.com/x")
        #expect(fetched.failure != nil)
        if case .privateAddress = fetched.failure { Issue.record("the flag allows private addresses") }
    }

    /// Finding 2: one probe of a domain at a time, and a few a minute; past that 429 with Retry-After.
    @Test func probesAndCDNChecksAreRateLimitedPerDomain() async throws {
        let configure: @Sendable (inout AppConfig) -> Void = { config in
            config.probeRunsPerMinute = 2
            config.fetch.lookup = { _ in ["10.9.9.9"] }
        }
        try await TestWorld.run(configure: configure) { w in
            #expect(
                try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "a.example"]).status == 201)
            #expect(
                try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "b.example"]).status == 201)
            for _ in 0..<2 {
                #expect(try await w.call(.post, "/v1/domains/a.example/probe", token: w.adminToken).status == 200)
            }
            let third = try await w.call(.post, "/v1/domains/A.EXAMPLE/probe", token: w.adminToken)
            #expect(third.status == 429, "\(third.text)")
            #expect(third.headers[.retryAfter].flatMap(Int.init).map { (1...60).contains($0) } == true)
            #expect(third.headers[.contentType] == "application/problem+json")
            // Another domain, and the CDN check of the same domain, are counted apart.
            #expect(try await w.call(.post, "/v1/domains/b.example/probe", token: w.adminToken).status == 200)
            #expect(try await w.call(.post, "/v1/domains/a.example/cdn/check", token: w.adminToken).status == 200)
        }
        // One in flight per domain.
        let limiter = FetchLimiter(perMinute: 100)
        let (started, signal) = AsyncStream.makeStream(of: Void.self)
        let (release, open) = AsyncStream.makeStream(of: Void.self)
        async let first: Void = limiter.run("probe", host: "x.example") {
            signal.yield()
            for await _ in release { break }
        }
        for await _ in started { break }
        await #expect(throws: ServiceError.self) { try await limiter.run("probe", host: "x.example") {} }
        try await limiter.run("probe", host: "y.example") {}
        open.yield()
        try await first
        try await limiter.run("probe", host: "x.example") {}
    }
}
