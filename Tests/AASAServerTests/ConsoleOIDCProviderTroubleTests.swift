import AASATestSupport
import Foundation
import HTTPTypes
import Testing

@testable import AASAServer

/// A provider's trouble is the provider's: its discovery document being fetched, or not reachable at
/// all, never counts against the person signing in; and what it sends that PostgreSQL cannot hold
/// is refused and audited, not a 500.
@Suite struct ConsoleOIDCProviderTroubleTests {
    /// Six people start at once on a replica that has not fetched the provider's discovery document:
    /// each joins the one fetch. Before, five of six were 503 and counted as failed sign-ins.
    @Test func simultaneousStartsOnAFreshReplicaShareOneDiscoveryFetch() async throws {
        let corp = try await ConsoleOIDCTests.provider("corp")
        try await TestWorld.run(configure: try ConsoleOIDCTests.configure([corp])) { w in
            _ = try await ConsoleOIDCTests.setUp(w)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<6 {
                    group.addTask { try await PersonBrowser(w).get("/console/sign-in/oidc/corp").status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 303, count: 6), "\(statuses)")
            #expect(try await ConsoleOIDCTests.audit(w, "console.sign-in-refused").isEmpty)
        }
    }

    /// A provider that cannot be reached is 503 every time, never 429: its outage is not the
    /// client's failure (the limit counts five failures a minute).
    @Test func aProviderThatCannotBeReachedNeverThrottlesTheClient() async throws {
        let trusted = try await ConsoleOIDCTests.provider("corp")
        let rogue = try await ConsoleOIDCTests.provider("rogue", host: "rogue.test")
        let frozen = ContinuousClock.now
        let providers = try ConsoleOIDCTests.configure([trusted, rogue])
        let configure: @Sendable (inout AppConfig) -> Void = {
            providers(&$0)
            $0.signInClock = { frozen }
        }
        try await TestWorld.run(configure: configure) { w in
            _ = try await ConsoleOIDCTests.setUp(w)
            let b = PersonBrowser(w)
            var statuses: [Int] = []
            for _ in 0..<7 { statuses.append(try await b.get("/console/sign-in/oidc/rogue").status) }
            #expect(statuses == Array(repeating: 503, count: 7), "\(statuses)")
            // The same client still signs in through the provider that works.
            let (reply, _) = try await ConsoleOIDCTests.signIn(b, trusted, as: "alice")
            #expect(reply.status == 200, "\(reply.status) \(reply.text.prefix(300))")
        }
    }

    /// A groups claim holding U+0000: refused 401 `malformed`, audited, nobody signed in. Before, it
    /// reached SQL, the callback was 500 and nothing was audited.
    @Test func aGroupsClaimPostgreSQLCannotHoldIsRefusedAndAudited() async throws {
        let corp = try await ConsoleOIDCTests.provider("corp")
        try await TestWorld.run(configure: try ConsoleOIDCTests.configure([corp])) { w in
            _ = try await ConsoleOIDCTests.setUp(w)
            try await corp.idp.setUser(
                "alice",
                [
                    "sub": "alice", "email": "alice@example.com", "email_verified": true,
                    "groups": ["shop-developers", "bad\u{0}group"],
                ])
            let b = PersonBrowser(w)
            let (reply, _) = try await ConsoleOIDCTests.signIn(b, corp, as: "alice")
            try await ConsoleOIDCTests.expectRefused(w, b, reply, status: 401, reason: "malformed")
            #expect(reply.text.contains("group 2 of 2"), "names which group: \(reply.text.prefix(2000))")
        }
    }
}
