import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import HTTPTypes
import Testing

/// Issue 13: the organisation's guardrails (protected paths, catch-all rules, budgets) and the
/// kill switch, on PostgreSQL, with the web root's bytes checked.
@Suite struct GuardrailTests {
    static let webApp = "KLMNO12345.com.web.app"
    static let shopApp = GoldenURLTests.shopApp
    static let blogApp = GoldenURLTests.blogApp

    /// Adds team `web`, which holds the whole domain, to the two teams of `GoldenURLTests`.
    static func setUp(_ w: TestWorld, webRoots: [String] = []) async throws -> (shop: String, blog: String, web: String)
    {
        let (shop, blog) = try await GoldenURLTests.setUp(w, webRoots: webRoots)
        try await w.createTeam("web")
        let web = try await w.teamToken("web", scopes: ["write"]).secret
        try #require(try await w.call(.post, "/v1/teams/web/apps", token: web, json: ["appID": webApp]).status == 201)
        try #require(
            try await w.call(
                .put, "/v1/domains/example.com/grants/web", token: w.adminToken, json: ["pathPrefixes": ["/"]]
            ).status == 200)
        return (shop, blog, web)
    }

    /// No app may open /account/…: a rule that reaches it by a wildcard is refused with a witness
    /// URL; one whose earlier exclude covers the protected path passes.
    @Test func protectedPathsAreCheckedOnTheAutomataWithAWitness() async throws {
        try await TestWorld.run { w in
            let (_, _, web) = try await Self.setUp(w)
            let set = try await w.call(
                .put, "/v1/guardrails", token: w.adminToken, json: ["protectedPaths": ["/account/*", "/oauth/*"]])
            #expect(set.status == 200, "\(set.text)")
            let rules = GoldenURLTests.rules(Self.webApp)
            let refused = try await w.call(.put, rules, token: web, json: ["rules": [["/": "/a*t/*"]]])
            #expect(refused.status == 409, "\(refused.text)")
            #expect(refused.object["type"] as? String == "urn:aasad:problem:protected-path")
            let found = refused.object["violations"] as? [[String: Any]] ?? []
            let witness = try #require(found.first?["url"] as? String)
            #expect(witness.hasPrefix("https://example.com/account"))
            #expect(found.first?["appID"] as? String == Self.webApp)
            #expect(found.first?["pattern"] as? String == "/account/*")
            // The witness really opens the app: the matcher says so.
            let excluded: [[String: Any]] = [
                ["/": "/account/*", "exclude": true], ["/": "/oauth*", "exclude": true], ["/": "*"],
            ]
            let allowed = try await w.call(.put, rules, token: web, json: ["rules": excluded])
            #expect(allowed.status == 200, "\(allowed.text)")
            // A case-insensitive rule reaches /account through its upper-case spelling.
            let upper = try await w.call(
                .put, rules, token: web, json: ["rules": [["/": "/ACCOUNT/settings", "caseSensitive": false]]])
            #expect(upper.status == 409)
            // A new protected path that a draft already opens is refused when it is set.
            let late = try await w.call(
                .put, "/v1/domains/example.com/guardrails", token: w.adminToken, json: ["protectedPaths": ["/promo/*"]])
            #expect(late.status == 409, "\(late.text)")
            #expect(
                (late.object["violations"] as? [[String: Any]])?.first?["url"] as? String == "https://example.com/promo"
            )
        }
    }

    /// An opening an admin forced through blocks nobody else while it lasts, and lapses when closed.
    @Test func aForcedProtectedPathOpeningIsExemptUntilClosed() async throws {
        try await TestWorld.run { w in
            let (shop, _, web) = try await Self.setUp(w)
            #expect(
                try await w.call(.put, "/v1/guardrails", token: w.adminToken, json: ["protectedPaths": ["/account/*"]])
                    .status == 200)
            let rules = GoldenURLTests.rules(Self.webApp)
            let opening: [String: Any] = ["rules": [["/": "/account/help"]]]
            #expect(try await w.call(.put, rules, token: web, json: opening).status == 409)
            #expect(
                try await w.call(
                    .put, rules + "?force=true&reason=help%20page%20moves%20next%20week", token: w.adminToken,
                    json: opening
                ).status == 200)
            // Another team's unrelated change is not held up by the forced opening.
            #expect(
                try await w.call(
                    .put, GoldenURLTests.rules(Self.shopApp), token: shop,
                    json: ["rules": [["/": "/shop/*"], ["/": "/deals/*"]]]
                ).status == 200)
            // Closing it ends the exemption: opening it again is refused again.
            #expect(try await w.call(.put, rules, token: web, json: ["rules": [["/": "/help/*"]]]).status == 200)
            #expect(try await w.call(.put, rules, token: web, json: opening).status == 409)
        }
    }

    /// A rule that matches every path is refused from a team whose grant is narrower than `/`,
    /// however it is spelled; the team that holds `/` may have one.
    @Test func catchAllRulesNeedAGrantOfSlash() async throws {
        try await TestWorld.run { w in
            let (shop, _, web) = try await Self.setUp(w)
            #expect(
                try await w.call(
                    .patch, "/v1/domains/example.com", token: w.adminToken,
                    json: ["substitutionVariables": ["anything": ["*"]]]
                ).status == 200)
            for pattern in ["*", "/*", "/?*", "$(alpha)*", "/$(anything)"] {
                let reply = try await w.call(
                    .put, GoldenURLTests.rules(Self.shopApp), token: shop, json: ["rules": [["/": pattern]]])
                #expect(reply.status == 422, "\(pattern): \(reply.text)")
                #expect(reply.problemRules == ["catch-all"], "\(pattern)")
                #expect(reply.problemFields == ["/rules/0/~1"], "\(pattern)")
            }
            let noPath = try await w.call(
                .put, GoldenURLTests.rules(Self.shopApp), token: shop, json: ["rules": [["?": ["ref": "*"]]]])
            #expect(noPath.problemRules == ["catch-all"])
            // Not a catch-all: outside the grant all the same, but said as such.
            let narrow = try await w.call(
                .put, GoldenURLTests.rules(Self.shopApp), token: shop, json: ["rules": [["/": "/s*"]]])
            #expect(narrow.status == 422 && narrow.problemRules == ["outside-grant"], "\(narrow.text)")
            #expect(
                try await w.call(
                    .put, GoldenURLTests.rules(Self.webApp), token: web, json: ["rules": [["/": "$(alpha)*"]]]
                ).status == 200)
        }
    }

    /// Budgets per team per domain: rules and bytes of the file; 422 naming the usage; a team
    /// over a lowered budget may still shrink.
    @Test func budgetsOnRulesAndBytes() async throws {
        try await TestWorld.run { w in
            let (shop, _, _) = try await Self.setUp(w)
            #expect(
                try await w.call(
                    .put, "/v1/domains/example.com/guardrails", token: w.adminToken,
                    json: ["protectedPaths": [], "maxRulesPerTeam": 2, "maxBytesPerTeam": 150]
                ).status == 200)
            let rules = GoldenURLTests.rules(Self.shopApp)
            let three = try await w.call(
                .put, rules, token: shop, json: ["rules": [["/": "/shop/a"], ["/": "/shop/b"], ["/": "/shop/c"]]])
            #expect(three.status == 422)
            #expect(three.problemRules == ["budget-rules"])
            #expect(
                three.text.contains("would have 3 rules") && three.text.contains("has 1 now")
                    && three.text.contains("budget there is 2"))
            let long = String(repeating: "x", count: 120)
            let big = try await w.call(.put, rules, token: shop, json: ["rules": [["/": "/shop/\(long)"]]])
            #expect(big.status == 422, "\(big.text)")
            #expect(big.problemRules == ["budget-bytes"])
            #expect(
                try await w.call(.put, rules, token: shop, json: ["rules": [["/": "/shop/a"], ["/": "/shop/b"]]]).status
                    == 200)
            // The organisation's smaller budget wins; shrinking is always allowed.
            #expect(
                try await w.call(
                    .put, "/v1/guardrails", token: w.adminToken, json: ["protectedPaths": [], "maxRulesPerTeam": 1]
                ).status == 200)
            #expect(
                try await w.call(
                    .put, rules, token: shop, json: ["rules": [["/": "/shop/a"], ["/": "/shop/b"], ["/": "/shop/c"]]]
                ).problemRules == ["budget-rules"])
            #expect(try await w.call(.put, rules, token: shop, json: ["rules": [["/": "/shop/a"]]]).status == 200)
            let bad = try await w.call(
                .put, "/v1/guardrails", token: w.adminToken, json: ["protectedPaths": ["account/*", "/x/$(alpha)"]])
            #expect(bad.status == 422)
            #expect(bad.problemFields == ["/protectedPaths/0", "/protectedPaths/1"])
            #expect(try await w.call(.put, "/v1/guardrails", token: shop, json: ["protectedPaths": []]).status == 403)
        }
    }

    /// The kill switch: blog's apps leave the served file at once (bytes checked in the web root),
    /// its rules stay stored, its golden URL does not hold the switch up; resuming restores both.
    @Test func suspensionAndResumptionPublishAtOnce() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-kill-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        @Sendable func served() -> String {
            String(
                decoding: FileManager.default.contents(atPath: root + "/.well-known/apple-app-site-association")
                    ?? Data(), as: UTF8.self)
        }
        try await TestWorld.run { w in
            let (shop, blog, _) = try await Self.setUp(w, webRoots: [root])
            #expect(
                try await GoldenURLTests.expect(
                    w, token: blog, "https://example.com/blog/1", "opens", app: Self.blogApp
                ).status == 201)
            #expect(
                try await w.call(.post, "/v1/domains/example.com/publish", token: shop, json: ["reason": "r1"]).status
                    == 201)
            #expect(served().contains(Self.blogApp) && served().contains(Self.shopApp))

            #expect(
                try await w.call(
                    .post, "/v1/domains/example.com/suspensions", token: blog, json: ["team": "blog", "reason": "x"]
                ).status == 403)
            let suspended = try await w.call(
                .post, "/v1/domains/example.com/suspensions", token: w.adminToken,
                json: ["team": "blog", "reason": "blog's rule hijacks the home page"])
            #expect(suspended.status == 201, "\(suspended.text)")
            #expect((suspended.object["published"] as? [[String: Any]])?.first?["revision"] as? Int == 2)
            #expect(!served().contains(Self.blogApp) && served().contains(Self.shopApp))
            #expect(try await GoldenURLTests.ruleCount(w, Self.blogApp, token: blog) == 1)
            let again = try await w.call(
                .post, "/v1/domains/example.com/suspensions", token: w.adminToken,
                json: ["team": "blog", "reason": "again"])
            #expect(again.status == 409)
            let list = try await w.call(.get, "/v1/domains/example.com/suspensions", token: shop)
            #expect((list.object["items"] as? [[String: Any]])?.first?["team"] as? String == "blog")
            // A rollback cannot bring the suspended team back.
            let rollback = try await w.call(
                .post, "/v1/domains/example.com/revisions/1/rollback", token: w.adminToken, json: ["reason": "undo"])
            #expect(rollback.status == 422, "\(rollback.text)")
            // Other teams keep working while blog is out.
            #expect(
                try await w.call(
                    .put, GoldenURLTests.rules(Self.shopApp), token: shop,
                    json: ["rules": [["/": "/shop/*"], ["/": "/deals/*"]]]
                ).status == 200)

            let resumed = try await w.call(.delete, "/v1/domains/example.com/suspensions/blog", token: w.adminToken)
            #expect(resumed.status == 200, "\(resumed.text)")
            #expect(served().contains(Self.blogApp))
            #expect(
                try await w.call(.delete, "/v1/domains/example.com/suspensions/blog", token: w.adminToken).status == 404
            )
            let audit = try await w.call(.get, "/v1/audit?domain=example.com", token: w.adminToken)
            let actions = (audit.object["items"] as? [[String: Any]] ?? []).compactMap { $0["action"] as? String }
            #expect(actions.contains("team.suspend") && actions.contains("team.resume"))
            let check = try await w.call(.get, GoldenURLTests.expectations + "/check", token: blog)
            #expect(check.object["brokenInDraft"] as? Int == 0)
        }
    }

    /// `*` suspends a team on every domain it is on.
    @Test func suspensionOnEveryDomain() async throws {
        try await TestWorld.run { w in
            let (_, blog, _) = try await Self.setUp(w)
            #expect(
                try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "example.org"]).status == 201
            )
            #expect(
                try await w.call(
                    .put, "/v1/domains/example.org/grants/blog", token: w.adminToken, json: ["pathPrefixes": ["/"]]
                ).status == 200)
            #expect(
                try await w.call(
                    .put, "/v1/domains/example.org/apps/\(Self.blogApp)/rules", token: blog,
                    json: ["rules": [["/": "/news/*"]]]
                ).status == 200)
            let all = try await w.call(
                .post, "/v1/domains/*/suspensions", token: w.adminToken, json: ["team": "blog", "reason": "leaked key"])
            #expect(all.status == 201, "\(all.text)")
            #expect(
                Set((all.object["published"] as? [[String: Any]] ?? []).compactMap { $0["host"] as? String }) == [
                    "example.com", "example.org",
                ])
            let draft = try await w.call(.get, "/v1/domains/example.org/aasa", token: w.adminToken)
            #expect(!draft.text.contains(Self.blogApp))
            #expect(try await w.call(.delete, "/v1/domains/*/suspensions/blog", token: w.adminToken).status == 200)
            #expect(
                try await w.call(.get, "/v1/domains/example.org/aasa", token: w.adminToken).text.contains(Self.blogApp))
        }
    }
}
