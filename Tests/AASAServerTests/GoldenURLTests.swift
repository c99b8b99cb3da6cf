import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import HTTPTypes
import Testing

/// Issue 13: golden URLs. Two teams share example.com; each change is checked against every
/// team's expectations before it commits, on PostgreSQL, through the API.
@Suite struct GoldenURLTests {
    static let shopApp = "FGHIJ67890.com.shop.app"
    static let blogApp = "ABCDE12345.com.blog.app"
    static let expectations = "/v1/domains/example.com/expectations"

    static func rules(_ app: String) -> String { "/v1/domains/example.com/apps/\(app)/rules" }

    /// shop holds /shop and /deals, blog holds /blog and /shop/sale; each has an app with rules.
    static func setUp(_ w: TestWorld, webRoots: [String] = []) async throws -> (shop: String, blog: String) {
        try await w.createTeam("shop")
        try await w.createTeam("blog")
        let shop = try await w.teamToken("shop", scopes: ["write"]).secret
        let blog = try await w.teamToken("blog", scopes: ["write"]).secret
        try #require(
            try await w.call(.post, "/v1/teams/shop/apps", token: shop, json: ["appID": shopApp]).status == 201)
        try #require(
            try await w.call(.post, "/v1/teams/blog/apps", token: blog, json: ["appID": blogApp]).status == 201)
        try #require(
            try await w.call(
                .post, "/v1/domains", token: w.adminToken,
                json: [
                    "host": "example.com", "aliases": ["www.example.com"],
                    "webRoots": webRoots,
                ]
            ).status == 201)
        try #require(
            try await w.call(
                .put, "/v1/domains/example.com/grants/shop", token: w.adminToken,
                json: ["pathPrefixes": ["/shop", "/deals"]]
            ).status == 200)
        try #require(
            try await w.call(
                .put, "/v1/domains/example.com/grants/blog", token: w.adminToken,
                json: ["pathPrefixes": ["/blog", "/shop/sale"]]
            ).status == 200)
        try #require(
            try await w.call(.put, rules(shopApp), token: shop, json: ["rules": [["/": "/shop/*"]]]).status == 200)
        try #require(
            try await w.call(.put, rules(blogApp), token: blog, json: ["rules": [["/": "/blog/*"]]]).status == 200)
        return (shop, blog)
    }

    static func expect(
        _ w: TestWorld, token: String, _ url: String, _ kind: String, app: String? = nil,
        source: String = "draft"
    ) async throws -> TestWorld.Reply {
        var body: [String: Any] = ["url": url, "kind": kind, "source": source]
        if let app { body["appID"] = app }
        return try await w.call(.post, expectations, token: token, json: body)
    }

    static func violations(_ reply: TestWorld.Reply) -> [[String: Any]] {
        reply.object["violations"] as? [[String: Any]] ?? []
    }

    static func ruleCount(_ w: TestWorld, _ app: String, token: String) async throws -> Int {
        (try await w.call(.get, rules(app), token: token).object["rules"] as? [Any])?.count ?? -1
    }

    /// B's rule steals A's golden URL: 409 naming the URL, its team, what opens it now and after,
    /// and B's rule; nothing is written.
    @Test func anotherTeamsRuleCannotStealAGoldenURL() async throws {
        try await TestWorld.run { w in
            let (shop, blog) = try await Self.setUp(w)
            let created = try await Self.expect(
                w, token: shop, "https://example.com/shop/sale/1", "opens", app: Self.shopApp)
            #expect(created.status == 201, "\(created.text)")
            #expect(created.object["team"] as? String == "shop")
            #expect(
                try await w.call(
                    .put, "/v1/domains/example.com/order", token: w.adminToken,
                    json: ["apps": [Self.blogApp, Self.shopApp]]
                ).status == 200)

            let steal = try await w.call(
                .put, Self.rules(Self.blogApp), token: blog, json: ["rules": [["/": "/blog/*"], ["/": "/shop/sale/*"]]])
            #expect(steal.status == 409, "\(steal.text)")
            #expect(steal.headers[.contentType] == "application/problem+json")
            #expect(steal.object["type"] as? String == "urn:aasad:problem:expectation-broken")
            let broken = try #require(Self.violations(steal).first)
            #expect(broken["url"] as? String == "https://example.com/shop/sale/1")
            #expect(broken["team"] as? String == "shop")
            #expect(broken["opensNow"] as? String == Self.shopApp)
            #expect(broken["wouldOpen"] as? String == Self.blogApp)
            let cause = broken["cause"] as? [String: Any] ?? [:]
            #expect(cause["kind"] as? String == "rule")
            #expect(cause["team"] as? String == "blog")
            #expect(cause["appID"] as? String == Self.blogApp)
            #expect((cause["ruleID"] as? String)?.count == 36)
            #expect(try await Self.ruleCount(w, Self.blogApp, token: blog) == 1)

            // The same rule that does not reach the golden URL is fine.
            #expect(
                try await w.call(
                    .put, Self.rules(Self.blogApp), token: blog,
                    json: ["rules": [["/": "/blog/*"], ["/": "/shop/sale/blog-picks/*"]]]
                ).status == 200)
        }
    }

    /// Reordering apps flips who opens a URL both match: refused, blamed on the order.
    @Test func reorderingAppsCannotBreakAGoldenURL() async throws {
        try await TestWorld.run { w in
            let (shop, blog) = try await Self.setUp(w)
            #expect(
                try await w.call(
                    .put, "/v1/domains/example.com/order", token: w.adminToken,
                    json: ["apps": [Self.shopApp, Self.blogApp]]
                ).status == 200)
            #expect(
                try await w.call(
                    .put, Self.rules(Self.blogApp), token: blog,
                    json: ["rules": [["/": "/blog/*"], ["/": "/shop/sale/*"]]]
                ).status == 200)
            #expect(
                try await Self.expect(w, token: shop, "https://example.com/shop/sale/2", "opens", app: Self.shopApp)
                    .status == 201)
            let reorder = try await w.call(
                .put, "/v1/domains/example.com/order", token: w.adminToken,
                json: ["apps": [Self.blogApp, Self.shopApp]])
            #expect(reorder.status == 409, "\(reorder.text)")
            let cause = Self.violations(reorder).first?["cause"] as? [String: Any] ?? [:]
            #expect(cause["kind"] as? String == "order")
            #expect(cause["change"] as? String == "order.replace")
            let order = try await w.call(.get, "/v1/domains/example.com/order", token: w.adminToken)
            #expect(order.object["apps"] as? [String] == [Self.shopApp, Self.blogApp])
        }
    }

    /// An admin turns `caseSensitive` off: /Blog/About, which no app opened, would open blog's app.
    /// /Blog lies outside blog's grant (/blog, compared case-sensitively), so an admin pins it for
    /// blog (issue 24: a team pins only inside its grant; an admin anywhere).
    @Test func domainDefaultsThatFlipAnAnswerAreRefused() async throws {
        try await TestWorld.run { w in
            let (_, blog) = try await Self.setUp(w)
            let byTeam = try await Self.expect(w, token: blog, "https://www.example.com/Blog/About", "opensNone")
            #expect(byTeam.status == 422 && byTeam.problemRules == ["grant"], "\(byTeam.text)")
            let created = try await w.call(
                .post, Self.expectations, token: w.adminToken,
                json: ["url": "https://www.example.com/Blog/About", "kind": "opensNone", "team": "blog"])
            #expect(created.status == 201, "\(created.text)")
            let patch = try await w.call(
                .patch, "/v1/domains/example.com", token: w.adminToken, json: ["defaults": ["caseSensitive": false]])
            #expect(patch.status == 409, "\(patch.text)")
            let broken = Self.violations(patch).first ?? [:]
            #expect(broken["wouldOpen"] as? String == Self.blogApp)
            #expect((broken["cause"] as? [String: Any])?["change"] as? String == "domain.update")
            let domain = try await w.call(.get, "/v1/domains/example.com", token: w.adminToken)
            #expect((domain.object["defaults"] as? [String: Any])?["caseSensitive"] == nil)
        }
    }

    /// A rollback to a revision older than an expectation, which it breaks, is refused; the served
    /// file stays.
    @Test func rollbackThatBreaksALaterExpectationIsRefused() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-golden-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestWorld.run { w in
            let (shop, _) = try await Self.setUp(w, webRoots: [root])
            #expect(
                try await w.call(.post, "/v1/domains/example.com/publish", token: shop, json: ["reason": "r1"]).status
                    == 201)
            #expect(
                try await w.call(
                    .put, Self.rules(Self.shopApp), token: shop, json: ["rules": [["/": "/shop/*"], ["/": "/deals/*"]]]
                ).status == 200)
            #expect(
                try await w.call(.post, "/v1/domains/example.com/publish", token: shop, json: ["reason": "r2"]).status
                    == 201)
            #expect(
                try await Self.expect(
                    w, token: shop, "https://example.com/deals/today", "opens", app: Self.shopApp, source: "published"
                ).status == 201)
            let served = FileManager.default.contents(atPath: root + "/.well-known/apple-app-site-association")

            let rollback = try await w.call(
                .post, "/v1/domains/example.com/revisions/1/rollback", token: w.adminToken, json: ["reason": "undo"])
            #expect(rollback.status == 409, "\(rollback.text)")
            let broken = Self.violations(rollback).first ?? [:]
            #expect(broken["url"] as? String == "https://example.com/deals/today")
            #expect(broken["opensNow"] as? String == Self.shopApp)
            #expect(broken["wouldOpen"] is NSNull)
            #expect((broken["cause"] as? [String: Any])?["kind"] as? String == "no-rule")
            #expect(FileManager.default.contents(atPath: root + "/.well-known/apple-app-site-association") == served)
            let revisions = try await w.call(.get, "/v1/domains/example.com/revisions", token: shop)
            #expect((revisions.object["items"] as? [Any])?.count == 2)
        }
    }

    /// An admin forces a change past a golden URL with a reason: audited as its own action, the
    /// expectation is marked broken (it no longer blocks others), and the next revision lists it.
    @Test func forceWithAReasonIsAuditedAndShownInTheRevision() async throws {
        try await TestWorld.run { w in
            let (shop, blog) = try await Self.setUp(w)
            #expect(
                try await Self.expect(w, token: shop, "https://example.com/shop/sale/1", "opens", app: Self.shopApp)
                    .status == 201)
            #expect(
                try await w.call(
                    .put, "/v1/domains/example.com/order", token: w.adminToken,
                    json: ["apps": [Self.blogApp, Self.shopApp]]
                ).status == 200)
            let body: [String: Any] = ["rules": [["/": "/blog/*"], ["/": "/shop/sale/*"]]]
            // Only an admin may force, and only with a reason.
            #expect(
                try await w.call(.put, Self.rules(Self.blogApp) + "?force=true&reason=sale", token: blog, json: body)
                    .status == 403)
            let noReason = try await w.call(
                .put, Self.rules(Self.blogApp) + "?force=true", token: w.adminToken, json: body)
            #expect(noReason.status == 400)
            #expect(noReason.problemFields == ["reason"])
            let forced = try await w.call(
                .put, Self.rules(Self.blogApp) + "?force=true&reason=summer%20sale%20hand-over", token: w.adminToken,
                json: body)
            #expect(forced.status == 200, "\(forced.text)")

            let audit = try await w.call(.get, "/v1/audit?domain=example.com", token: w.adminToken)
            let events = audit.object["items"] as? [[String: Any]] ?? []
            let override = try #require(events.first { $0["action"] as? String == "policy.override" })
            let after = override["after"] as? [String: Any] ?? [:]
            #expect(after["reason"] as? String == "summer sale hand-over")
            #expect(after["refusal"] as? String == "expectation-broken")
            let list = try await w.call(.get, Self.expectations, token: blog)
            #expect((list.object["items"] as? [[String: Any]])?.first?["holdsInDraft"] as? Bool == false)

            // Broken by an override, it blocks nobody: blog changes again without force.
            #expect(
                try await w.call(
                    .put, Self.rules(Self.blogApp), token: blog,
                    json: ["rules": [["/": "/blog/*"], ["/": "/shop/sale/*"], ["/": "/blog/extra"]]]
                ).status == 200)
            let published = try await w.call(
                .post, "/v1/domains/example.com/publish?force=true&reason=ship%20it", token: w.adminToken,
                json: ["reason": "r1"])
            #expect(published.status == 201, "\(published.text)")
            let overrides = (published.object["revision"] as? [String: Any])?["overrides"] as? [[String: Any]] ?? []
            #expect(overrides.contains { $0["reason"] as? String == "summer sale hand-over" })
        }
    }

    /// A manifest changes the team's rules and its golden URLs in one apply; without the new
    /// expectation list the same rules are refused, and the plan shows why.
    @Test func aManifestFixesItsOwnExpectationAndRulesTogether() async throws {
        try await TestWorld.run { w in
            let (shop, _) = try await Self.setUp(w)
            #expect(
                try await Self.expect(w, token: shop, "https://example.com/shop/old/1", "opens", app: Self.shopApp)
                    .status == 201)
            func manifest(expect: [[String: Any]]?) -> [String: Any] {
                var domain: [String: Any] = [
                    "host": "example.com", "apps": [["appID": Self.shopApp, "rules": [["/": "/shop/new/*"]]]],
                ]
                if let expect { domain["expect"] = expect }
                return ["apps": [["appID": Self.shopApp]], "domains": [domain]]
            }
            let plan = try await w.call(
                .post, "/v1/teams/shop/manifest?dryRun=true", token: shop, json: manifest(expect: nil))
            #expect(plan.status == 409, "\(plan.text)")
            #expect(Self.violations(plan).first?["url"] as? String == "https://example.com/shop/old/1")

            let fixed = manifest(expect: [
                ["url": "https://example.com/shop/new/1", "kind": "opens", "appID": Self.shopApp]
            ])
            let applied = try await w.call(.post, "/v1/teams/shop/manifest", token: shop, json: fixed)
            #expect(applied.status == 200, "\(applied.text)")
            let changes =
                ((applied.object["domains"] as? [[String: Any]])?.first?["expectations"] as? [[String: Any]] ?? [])
            #expect(Set(changes.compactMap { $0["action"] as? String }) == ["create", "delete"])
            let list = try await w.call(.get, Self.expectations, token: shop)
            #expect(
                (list.object["items"] as? [[String: Any]])?.compactMap { $0["url"] as? String } == [
                    "https://example.com/shop/new/1"
                ])
            // A manifest expectation that does not hold is named by its pointer.
            let wrong = manifest(expect: [
                ["url": "https://example.com/shop/other/1", "kind": "opens", "appID": Self.shopApp]
            ])
            let refused = try await w.call(.post, "/v1/teams/shop/manifest", token: shop, json: wrong)
            #expect(refused.status == 422)
            #expect(refused.problemFields.contains("/domains/0/expect/0/url"))
            #expect(refused.problemRules.contains("already-broken"))
        }
    }

    /// Bad input: 4xx naming the field, nothing stored.
    @Test func badExpectationsAreRefusedNamingTheField() async throws {
        try await TestWorld.run { w in
            let (shop, blog) = try await Self.setUp(w)
            let offDomain = try await Self.expect(
                w, token: shop, "https://other.example/shop/1", "opens", app: Self.shopApp)
            #expect(offDomain.status == 422)
            #expect(offDomain.problemFields == ["/url"] && offDomain.problemRules == ["on-domain"])
            let othersApp = try await Self.expect(
                w, token: shop, "https://example.com/shop/1", "opens", app: Self.blogApp)
            #expect(othersApp.status == 422)
            #expect(othersApp.problemFields == ["/appID"] && othersApp.problemRules == ["own-app"])
            let outsideGrant = try await Self.expect(
                w, token: shop, "https://example.com/blog/1", "opens", app: Self.shopApp)
            #expect(outsideGrant.problemRules == ["grant"])
            let unknownKind = try await w.call(
                .post, Self.expectations, token: shop,
                json: ["url": "https://example.com/shop/1", "kind": "opensMaybe"])
            #expect(unknownKind.status == 400, "\(unknownKind.text)")
            #expect(unknownKind.text.contains("kind"))
            let alreadyBroken = try await Self.expect(w, token: blog, "https://example.com/blog/1", "opensNone")
            #expect(alreadyBroken.status == 422)
            #expect(alreadyBroken.problemRules == ["already-broken"])
            let notHTTPS = try await Self.expect(
                w, token: shop, "http://example.com/shop/1", "opens", app: Self.shopApp)
            #expect(notHTTPS.problemRules == ["https-url"])
            // notApp may name another team's app; a team may not delete another team's expectation.
            let guardBlog = try await Self.expect(
                w, token: shop, "https://example.com/shop/2", "notApp", app: Self.blogApp)
            #expect(guardBlog.status == 201)
            let id = try #require(guardBlog.object["id"] as? String)
            // Found by schemathesis: an oversized field is the answer even with a stale If-Match.
            let oversized = try await w.call(
                .put, Self.expectations + "/\(id)", token: shop,
                json: [
                    "url": "https://example.com/shop/2", "kind": "notApp",
                    "appID": String(repeating: "a", count: 256),
                ],
                headers: ["If-Match": "\"7\""])
            #expect(oversized.status == 422, "\(oversized.text)")
            #expect(oversized.problemFields == ["/appID"] && oversized.problemRules == ["maxLength"])
            #expect(try await w.call(.delete, Self.expectations + "/\(id)", token: blog).status == 403)
            #expect(
                try await w.call(.delete, Self.expectations + "/\(id)", token: shop, headers: ["If-Match": "\"7\""])
                    .status == 412)
            #expect(
                try await w.call(.delete, Self.expectations + "/\(id)", token: shop, headers: ["If-Match": "\"1\""])
                    .status == 204)
            let list = try await w.call(.get, Self.expectations, token: blog)
            #expect((list.object["items"] as? [Any])?.isEmpty == true)
        }
    }

    /// The check endpoint answers for the draft and the current revision.
    @Test func checkRunsEveryExpectationAgainstDraftAndPublished() async throws {
        try await TestWorld.run { w in
            let (shop, _) = try await Self.setUp(w)
            #expect(
                try await w.call(.post, "/v1/domains/example.com/publish", token: shop, json: ["reason": "r1"]).status
                    == 201)
            #expect(
                try await w.call(
                    .put, Self.rules(Self.shopApp), token: shop, json: ["rules": [["/": "/shop/*"], ["/": "/deals/*"]]]
                ).status == 200)
            #expect(
                try await Self.expect(
                    w, token: shop, "https://example.com/deals/1", "opens", app: Self.shopApp, source: "published"
                ).status == 201)
            let check = try await w.call(.get, Self.expectations + "/check", token: shop)
            #expect(check.status == 200, "\(check.text)")
            #expect(check.object["brokenInDraft"] as? Int == 0)
            #expect(check.object["brokenWhenPublished"] as? Int == 1)
            let item = (check.object["items"] as? [[String: Any]])?.first ?? [:]
            #expect((item["draft"] as? [String: Any])?["appID"] as? String == Self.shopApp)
            #expect(((item["draft"] as? [String: Any])?["rule"] as? [String: Any])?["team"] as? String == "shop")
            #expect((item["published"] as? [String: Any])?["holds"] as? Bool == false)
        }
    }
}
