import AASAKernel
import AASAOutbound
import AASARules
import AASAServer
import AASAServices
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import Testing

/// Issue 16, on PostgreSQL and real files: two teams with iOS and Android apps on one domain.
/// Each team's rules for its Android app are grant-checked like its iOS app's, rendered into
/// assetlinks.json (never into the AASA), published in their own revision stream, served by Host
/// and written into the web root; one file rolls back without the other.
@Suite struct AndroidTests {
    static let shopIOS = "FGHIJ67890.com.shop.app"
    static let shopAndroid = "com.shop.app"
    static let blogAndroid = "com.blog.app"
    static let upload = (0..<32).map { String(format: "%02X", $0) }.joined(separator: ":")
    static let playSigning = (0..<32).map { String(format: "%02X", 255 - $0) }.joined(separator: ":")

    static func rules(_ app: String) -> String { "/v1/domains/example.com/apps/\(app)/rules" }

    static func setUp(_ w: TestWorld, root: String) async throws -> (shop: String, blog: String) {
        try await w.createTeam("shop")
        try await w.createTeam("blog")
        let shop = try await w.teamToken("shop", scopes: ["write"]).secret
        let blog = try await w.teamToken("blog", scopes: ["write"]).secret
        try #require(
            try await w.call(.post, "/v1/teams/shop/apps", token: shop, json: ["appID": shopIOS]).status == 201)
        let android = try await w.call(
            .post, "/v1/teams/shop/apps", token: shop,
            json: ["appID": shopAndroid, "platform": "android", "fingerprints": [upload, playSigning]])
        try #require(android.status == 201, "\(android.text)")
        #expect(android.object["platform"] as? String == "android")
        #expect(android.object["fingerprints"] as? [String] == [upload, playSigning])
        try #require(
            try await w.call(
                .post, "/v1/teams/blog/apps", token: blog,
                json: [
                    "appID": blogAndroid, "platform": "android", "fingerprints": [upload],
                    "services": ["applinks", "webcredentials"],
                ]
            ).status == 201)
        try #require(
            try await w.call(
                .post, "/v1/domains", token: w.adminToken,
                json: ["host": "example.com", "aliases": ["www.example.com"], "webRoots": [root]]
            ).status == 201)
        try #require(
            try await w.call(
                .put, "/v1/domains/example.com/grants/shop", token: w.adminToken,
                json: ["pathPrefixes": ["/shop"]]
            ).status == 200)
        try #require(
            try await w.call(
                .put, "/v1/domains/example.com/grants/blog", token: w.adminToken,
                json: ["pathPrefixes": ["/blog"], "services": ["webcredentials"]]
            ).status == 200)
        try #require(
            try await w.call(.put, rules(shopIOS), token: shop, json: ["rules": [["/": "/shop/*"]]]).status == 200)
        let shopRules = try await w.call(
            .put, rules(shopAndroid), token: shop,
            json: ["rules": [["/": "/shop/cart", "exclude": true], ["/": "/shop/*"]]])
        try #require(shopRules.status == 200, "\(shopRules.text)")
        try #require(
            try await w.call(
                .put, rules(blogAndroid), token: blog, json: ["rules": [["/": "/blog/*", "comment": "posts"]]]
            ).status == 200)
        return (shop, blog)
    }

    static func statements(_ bytes: [UInt8]) -> [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [[String: Any]] ?? []
    }

    static func package(_ statement: [String: Any]) -> String? {
        (statement["target"] as? [String: Any])?["package_name"] as? String
    }

    @Test func bothFilesArePublishedServedAndRolledBackApart() async throws {
        let root = try PublishingTests.tempDir()
        try await TestWorld.run(live: true) { w in
            let (shop, blog) = try await Self.setUp(w, root: root)
            let first = try await w.call(
                .post, "/v1/domains/example.com/publish", token: w.adminToken, json: ["reason": "both platforms"])
            #expect(first.status == 201, "\(first.text)")
            let assetLinks = try #require(first.object["assetLinks"] as? [String: Any])
            #expect((assetLinks["revision"] as? [String: Any])?["number"] as? Int == 1)

            // The AASA has the iOS app only; assetlinks.json both Android apps, in their own form.
            let aasa = try #require(PublishingTests.file(root))
            #expect(String(decoding: aasa, as: UTF8.self).contains(Self.shopIOS))
            #expect(!String(decoding: aasa, as: UTF8.self).contains("\"com.shop.app\""))
            let written = try #require(
                FileManager.default.contents(atPath: root + "/.well-known/assetlinks.json").map { [UInt8]($0) })
            let statements = Self.statements(written)
            #expect(statements.compactMap(Self.package) == [Self.blogAndroid, Self.shopAndroid])
            let shopStatement = try #require(statements.first { Self.package($0) == Self.shopAndroid })
            let extensions = shopStatement["relation_extensions"] as? [String: Any]
            let components =
                (extensions?["delegate_permission/common.handle_all_urls"] as? [String: Any])?[
                    "dynamic_app_link_components"] as? [[String: Any]]
            #expect(components?.count == 2)
            #expect(components?.first?["exclude"] as? Bool == true)
            let blogStatement = try #require(statements.first { Self.package($0) == Self.blogAndroid })
            #expect(
                (blogStatement["relation"] as? [String])?.contains("delegate_permission/common.get_login_creds") == true
            )

            // Served by Host (an alias too) with application/json, the bytes of the web root.
            let port = try #require(w.client.port)
            let url = "http://127.0.0.1:\(port)/.well-known/assetlinks.json"
            let served = try await Curl.get(url, host: "www.example.com")
            #expect(served.status == 200)
            #expect(served.headers["content-type"] == "application/json")
            #expect(served.body == written)
            #expect(try await Curl.get(url, host: "other.example").status == 404)

            // A change to an Android rule publishes assetlinks.json revision 2 and leaves the AASA at 1.
            #expect(
                try await w.call(.put, Self.rules(Self.shopAndroid), token: shop, json: ["rules": [["/": "/shop/*"]]])
                    .status == 200)
            let second = try await w.call(
                .post, "/v1/domains/example.com/publish", token: w.adminToken, json: ["reason": "android only"])
            #expect(second.status == 201, "\(second.text)")
            #expect((second.object["revision"] as? [String: Any])?["number"] as? Int == 1)
            #expect(
                ((second.object["assetLinks"] as? [String: Any])?["revision"] as? [String: Any])?["number"] as? Int == 2
            )
            #expect(PublishingTests.file(root) == aasa)
            let diff = try await w.call(.get, "/v1/domains/example.com/assetlinks/diff?from=1&to=2", token: shop)
            let changes = diff.object["diff"] as? [[String: Any]] ?? []
            #expect(changes.count == 1, "\(diff.text)")
            #expect(changes.first?["target"] as? String == Self.shopAndroid)
            #expect(changes.first?["change"] as? String == "changed")
            #expect((changes.first?["rulesRemoved"] as? [[String: Any]])?.first?["exclude"] as? Bool == true)
            #expect(
                try await w.call(.get, "/v1/domains/example.com/assetlinks/diff?from=9&to=draft", token: shop).status
                    == 404)

            // blog changes its part too: revision 3.
            #expect(
                try await w.call(
                    .put, Self.rules(Self.blogAndroid), token: blog, json: ["rules": [["/": "/blog/new/*"]]]
                ).status == 200)
            #expect(
                try await w.call(
                    .post, "/v1/domains/example.com/publish", token: w.adminToken, json: ["reason": "blog"]
                ).status == 201)
            // A team rolls back only its own part: shop going back to 1 would undo blog's change.
            let mixed = try await w.call(
                .post, "/v1/domains/example.com/assetlinks/revisions/1/rollback", token: shop, json: ["reason": "undo"])
            #expect(mixed.status == 403, "\(mixed.text)")
            #expect(mixed.text.contains("blog"))
            let own = try await w.call(
                .post, "/v1/domains/example.com/assetlinks/revisions/2/rollback", token: blog,
                json: ["reason": "undo mine"])
            #expect(own.status == 201, "\(own.text)")
            // An admin rolls back all of it; the AASA is untouched throughout.
            let rollback = try await w.call(
                .post, "/v1/domains/example.com/assetlinks/revisions/1/rollback", token: w.adminToken,
                json: ["reason": "undo"])
            #expect(rollback.status == 201, "\(rollback.text)")
            #expect((rollback.object["revision"] as? [String: Any])?["rollbackOf"] as? Int == 1)
            #expect(
                FileManager.default.contents(atPath: root + "/.well-known/assetlinks.json").map { [UInt8]($0) }
                    == written)
            #expect(try await Curl.get(url, host: "example.com").body == written)
            #expect(PublishingTests.file(root) == aasa)
            let list = try await w.call(.get, "/v1/domains/example.com/assetlinks/revisions", token: shop)
            #expect((list.object["items"] as? [[String: Any]])?.compactMap { $0["number"] as? Int } == [5, 4, 3, 2, 1])
            #expect(
                (try await w.call(.get, "/v1/domains/example.com/revisions", token: shop).object["items"] as? [Any])?
                    .count == 1)

            // A removed key never comes back through a rollback.
            #expect(
                try await w.call(
                    .patch, "/v1/apps/\(Self.shopAndroid)", token: shop, json: ["fingerprints": [Self.playSigning]]
                ).status == 200)
            let refused = try await w.call(
                .post, "/v1/domains/example.com/assetlinks/revisions/1/rollback", token: w.adminToken,
                json: ["reason": "again"])
            #expect(refused.status == 422, "\(refused.text)")
            #expect(refused.problemRules.contains("fingerprint-removed"))
        }
    }

    /// Bad Android input: 4xx naming the field and the rule, nothing written.
    @Test func androidAppsAndRulesAreCheckedLikeIOSOnes() async throws {
        let root = try PublishingTests.tempDir()
        try await TestWorld.run(live: true) { w in
            let (shop, blog) = try await Self.setUp(w, root: root)
            let lower = try await w.call(
                .post, "/v1/teams/shop/apps", token: shop,
                json: ["appID": "com.shop.lite", "platform": "android", "fingerprints": [Self.upload.lowercased()]])
            #expect(lower.status == 422)
            #expect(lower.problemFields == ["/fingerprints/0"] && lower.problemRules == ["fingerprint"])
            #expect(lower.text.contains(Self.upload))  // the fix: the upper-cased value
            let sha1 = try await w.call(
                .post, "/v1/teams/shop/apps", token: shop,
                json: [
                    "appID": "com.shop.lite", "platform": "android", "fingerprints": [String(Self.upload.prefix(59))],
                ])
            #expect(sha1.text.contains("L043"))
            let noKeys = try await w.call(
                .post, "/v1/teams/shop/apps", token: shop, json: ["appID": "com.shop.lite", "platform": "android"])
            #expect(noKeys.problemFields == ["/fingerprints"])
            let badPackage = try await w.call(
                .post, "/v1/teams/shop/apps", token: shop,
                json: ["appID": "shop", "platform": "android", "fingerprints": [Self.upload]])
            #expect(badPackage.problemRules == ["package-name"])
            let appClip = try await w.call(
                .post, "/v1/teams/shop/apps", token: shop,
                json: [
                    "appID": "com.shop.lite", "platform": "android", "fingerprints": [Self.upload],
                    "services": ["appclips"],
                ])
            #expect(appClip.problemRules == ["platform"])
            let iosKeys = try await w.call(
                .post, "/v1/teams/shop/apps", token: shop,
                json: ["appID": "FGHIJ67890.com.shop.lite", "fingerprints": [Self.upload]])
            #expect(iosKeys.problemFields == ["/fingerprints"])

            // Grants hold for Android rules; a rule with no Android form is refused naming it.
            let outside = try await w.call(
                .put, Self.rules(Self.blogAndroid), token: blog, json: ["rules": [["/": "/shop/*"]]])
            #expect([403, 422].contains(outside.status), "\(outside.text)")
            let caseless = try await w.call(
                .put, Self.rules(Self.shopAndroid), token: shop,
                json: ["rules": [["/": "/shop/*", "caseSensitive": false]]])
            #expect(caseless.status == 422, "\(caseless.text)")
            #expect(caseless.problemFields == ["/rules/0/caseSensitive"] && caseless.problemRules == ["A001"])
            let queryString = try await w.call(
                .put, Self.rules(Self.shopAndroid), token: shop, json: ["rules": [["/": "/shop/*", "?": "a=1"]]])
            #expect(queryString.problemRules == ["A001"])
            // The same rule is fine for the iOS app.
            #expect(
                try await w.call(
                    .put, Self.rules(Self.shopIOS), token: shop,
                    json: ["rules": [["/": "/shop/*", "caseSensitive": false]]]
                ).status == 200)

            let draft = try await w.call(.get, "/v1/domains/example.com/assetlinks", token: w.adminToken)
            #expect(draft.status == 200)
            #expect((draft.object["statements"] as? [Any])?.count == 2)
            let audit = try await w.call(.get, "/v1/audit?team=shop", token: w.adminToken)
            #expect(audit.text.contains(Self.shopAndroid))
        }
    }

    /// `POST /v1/match` with a platform, and the write-time warning when one team's rules open its
    /// app on one platform and not the other.
    @Test func matchAnswersPerPlatformAndSaysWhereTheyDisagree() async throws {
        let root = try PublishingTests.tempDir()
        try await TestWorld.run(live: true) { w in
            let (shop, _) = try await Self.setUp(w, root: root)
            // shop's iOS app opens /shop/cart; its Android app excludes it: a warning on the write.
            let write = try await w.call(
                .put, Self.rules(Self.shopAndroid), token: shop,
                json: ["rules": [["/": "/shop/cart", "exclude": true], ["/": "/shop/*"]]])
            #expect(write.status == 200)
            let warnings = write.object["warnings"] as? [[String: Any]] ?? []
            // Both differences are real: Apple's `/shop/*` also matches `/shop`, Android's does not.
            let messages = warnings.filter { $0["code"] as? String == "A010" }.compactMap { $0["message"] as? String }
            #expect(
                messages.contains { $0.contains("https://example.com/shop/cart on iOS but not on Android") },
                "\(write.text)")
            #expect(messages.contains { $0.contains("https://example.com/shop on iOS but not on Android") })
            let disagreement = try #require(warnings.first { $0["code"] as? String == "A010" })
            #expect(disagreement["team"] as? String == "shop")

            func match(_ url: String, _ platform: String, source: String = "draft") async throws -> TestWorld.Reply {
                try await w.call(
                    .post, "/v1/match", token: shop, json: ["url": url, "source": source, "platform": platform])
            }
            let cart = try await match("https://example.com/shop/cart", "both")
            #expect(cart.status == 200, "\(cart.text)")
            #expect(cart.object["appID"] as? String == Self.shopIOS)
            let android = try #require(cart.object["android"] as? [String: Any])
            #expect((android["opens"] as? [String])?.isEmpty == true)
            let shopDecision = (android["decisions"] as? [[String: Any]])?.first {
                $0["packageName"] as? String == Self.shopAndroid
            }
            #expect(shopDecision?["decision"] as? String == "exclude")
            #expect(shopDecision?["ruleIndex"] as? Int == 0)
            #expect(shopDecision?["team"] as? String == "shop")
            #expect(shopDecision?["ruleID"] is String)
            #expect((cart.object["disagreement"] as? String)?.contains("on Android no app opens it") == true)

            let item = try await match("https://example.com/shop/1", "both")
            #expect((item.object["android"] as? [String: Any])?["opens"] as? [String] == [Self.shopAndroid])
            #expect(item.object["disagreement"] == nil, "\(item.text)")
            // An admin sees every team's draft (a team sees others' published rules only).
            let onlyAndroid = try await w.call(
                .post, "/v1/match", token: w.adminToken,
                json: ["url": "https://example.com/blog/1", "source": "draft", "platform": "android"])
            #expect((onlyAndroid.object["android"] as? [String: Any])?["opens"] as? [String] == [Self.blogAndroid])
            #expect(onlyAndroid.object["appID"] == nil)

            // Published: nothing yet, then the published assetlinks.json answers with its revision.
            #expect(try await match("https://example.com/shop/1", "android", source: "published").status == 404)
            #expect(
                try await w.call(.post, "/v1/domains/example.com/publish", token: w.adminToken, json: ["reason": "go"])
                    .status == 201)
            let published = try await match("https://example.com/shop/1", "android", source: "published")
            #expect((published.object["android"] as? [String: Any])?["revision"] as? Int == 1)
            #expect((published.object["android"] as? [String: Any])?["opens"] as? [String] == [Self.shopAndroid])
        }
    }

    /// Golden URLs cover Android: an expectation naming an Android app is answered by
    /// assetlinks.json, and `opensNone` by both files.
    @Test func goldenURLsHoldOnAndroidToo() async throws {
        let root = try PublishingTests.tempDir()
        try await TestWorld.run(live: true) { w in
            let (shop, blog) = try await Self.setUp(w, root: root)
            let expectations = "/v1/domains/example.com/expectations"
            let created = try await w.call(
                .post, expectations, token: shop,
                json: ["url": "https://example.com/shop/1", "kind": "opens", "appID": Self.shopAndroid])
            #expect(created.status == 201, "\(created.text)")
            // Android excludes /shop/cart: an Android expectation that it opens is broken from the start.
            let broken = try await w.call(
                .post, expectations, token: shop,
                json: ["url": "https://example.com/shop/cart", "kind": "opens", "appID": Self.shopAndroid])
            #expect(broken.status == 422)
            #expect(broken.problemRules == ["already-broken"])
            // blog's Android app opens /blog/1, so "no app opens it" does not hold (iOS has no blog app).
            let none = try await w.call(
                .post, expectations, token: blog, json: ["url": "https://example.com/blog/1", "kind": "opensNone"])
            #expect(none.status == 422, "\(none.text)")

            // Shop's own Android change that stops opening /shop/1 is refused, naming Android; nothing is written.
            let steal = try await w.call(
                .put, Self.rules(Self.shopAndroid), token: shop,
                json: ["rules": [["/": "/shop/1", "exclude": true], ["/": "/shop/*"]]])
            #expect(steal.status == 409, "\(steal.text)")
            #expect(steal.text.contains("on Android no app"))
            let rules = try await w.call(.get, Self.rules(Self.shopAndroid), token: shop)
            #expect((rules.object["rules"] as? [Any])?.count == 2)
            let check = try await w.call(.get, expectations + "/check", token: shop)
            let item = (check.object["items"] as? [[String: Any]])?.first
            #expect((item?["draft"] as? [String: Any])?["holds"] as? Bool == true)
            #expect((item?["draft"] as? [String: Any])?["appID"] as? String == Self.shopAndroid)
        }
    }

    /// A manifest registers an Android app with its fingerprints and its rules, and re-applying it
    /// changes nothing; a new key list updates the app; a platform cannot change.
    @Test func aManifestCarriesAndroidApps() async throws {
        let root = try PublishingTests.tempDir()
        try await TestWorld.run(live: true) { w in
            let (shop, _) = try await Self.setUp(w, root: root)
            func manifest(_ fingerprints: [String], platform: String = "android") -> [String: Any] {
                [
                    "apps": [
                        ["appID": Self.shopIOS],
                        ["appID": "com.shop.lite", "platform": platform, "fingerprints": fingerprints],
                    ],
                    "domains": [
                        [
                            "host": "example.com",
                            "apps": [
                                ["appID": Self.shopIOS, "rules": [["/": "/shop/*"]]],
                                ["appID": "com.shop.lite", "rules": [["/": "/shop/lite/*"]]],
                            ],
                        ]
                    ],
                ]
            }
            let applied = try await w.call(.post, "/v1/teams/shop/manifest", token: shop, json: manifest([Self.upload]))
            #expect(applied.status == 200, "\(applied.text)")
            let app = try await w.call(.get, "/v1/apps/com.shop.lite", token: shop)
            #expect(app.object["platform"] as? String == "android")
            #expect(app.object["fingerprints"] as? [String] == [Self.upload])
            let draft = try await w.call(.get, "/v1/domains/example.com/assetlinks", token: w.adminToken)
            #expect(
                draft.text.contains("com.shop.lite") && draft.text.contains("lite/*") && !draft.text.contains(#"\/"#))
            #expect(
                !(try await w.call(.get, "/v1/domains/example.com/aasa", token: w.adminToken)).text.contains(
                    "com.shop.lite"))

            let again = try await w.call(.post, "/v1/teams/shop/manifest", token: shop, json: manifest([Self.upload]))
            let liteChange = (again.object["apps"] as? [[String: Any]])?.first {
                $0["appID"] as? String == "com.shop.lite"
            }
            #expect(liteChange?["action"] as? String == "unchanged", "\(again.text)")
            let rotated = try await w.call(
                .post, "/v1/teams/shop/manifest", token: shop, json: manifest([Self.upload, Self.playSigning]))
            #expect(rotated.status == 200)
            #expect(
                (try await w.call(.get, "/v1/apps/com.shop.lite", token: shop)).object["fingerprints"] as? [String] == [
                    Self.upload, Self.playSigning,
                ])

            let lower = try await w.call(
                .post, "/v1/teams/shop/manifest", token: shop, json: manifest([Self.upload.lowercased()]))
            #expect(lower.status == 422)
            #expect(lower.problemFields == ["/apps/1/fingerprints/0"])

            // A manifest makes an Android app follow the iOS app's rules: its own list goes.
            let follow: [String: Any] = [
                "apps": [
                    ["appID": Self.shopIOS],
                    [
                        "appID": "com.shop.lite", "platform": "android", "fingerprints": [Self.upload],
                        "rulesFrom": Self.shopIOS,
                    ],
                ],
                "domains": [["host": "example.com", "apps": [["appID": Self.shopIOS, "rules": [["/": "/shop/*"]]]]]],
            ]
            let followed = try await w.call(.post, "/v1/teams/shop/manifest", token: shop, json: follow)
            #expect(followed.status == 200, "\(followed.text)")
            #expect(
                (try await w.call(.get, "/v1/apps/com.shop.lite", token: shop)).object["rulesFrom"] as? String
                    == Self.shopIOS)
            #expect(
                !(try await w.call(.get, "/v1/domains/example.com/assetlinks", token: w.adminToken)).text.contains(
                    "lite\\/*"))
            var listsOwn = follow
            listsOwn["domains"] = [
                [
                    "host": "example.com",
                    "apps": [
                        ["appID": Self.shopIOS, "rules": [["/": "/shop/*"]]],
                        ["appID": "com.shop.lite", "rules": [["/": "/shop/lite/*"]]],
                    ],
                ]
            ]
            let refused = try await w.call(.post, "/v1/teams/shop/manifest", token: shop, json: listsOwn)
            #expect(refused.status == 422 && refused.problemRules == ["rules-from"], "\(refused.text)")
        }
    }

    /// Protected paths cover Android: a guardrail that an Android rule would break is refused, and
    /// so is an Android rule that opens a protected path.
    @Test func protectedPathsHoldOnAndroidToo() async throws {
        let root = try PublishingTests.tempDir()
        try await TestWorld.run(live: true) { w in
            let (shop, _) = try await Self.setUp(w, root: root)
            let excludeAccount: [[String: Any]] = [["/": "/shop/account/*", "exclude": true], ["/": "/shop/*"]]
            #expect(
                try await w.call(.put, Self.rules(Self.shopIOS), token: shop, json: ["rules": excludeAccount]).status
                    == 200)
            let guardrails = "/v1/domains/example.com/guardrails"
            let refused = try await w.call(
                .put, guardrails, token: w.adminToken, json: ["protectedPaths": ["/shop/account/*"]])
            #expect(refused.status == 409, "\(refused.text)")
            let violation = (refused.object["violations"] as? [[String: Any]])?.first
            #expect(violation?["platform"] as? String == "android")
            #expect(violation?["appID"] as? String == Self.shopAndroid)

            #expect(
                try await w.call(.put, Self.rules(Self.shopAndroid), token: shop, json: ["rules": excludeAccount])
                    .status == 200)
            #expect(
                try await w.call(.put, guardrails, token: w.adminToken, json: ["protectedPaths": ["/shop/account/*"]])
                    .status == 200)
            let opens = try await w.call(
                .put, Self.rules(Self.shopAndroid), token: shop, json: ["rules": [["/": "/shop/*"]]])
            #expect(opens.status == 409, "\(opens.text)")
            #expect(opens.text.contains("Android app com.shop.app"))
            #expect(
                (try await w.call(.get, Self.rules(Self.shopAndroid), token: shop).object["rules"] as? [Any])?.count
                    == 2)
        }
    }

    /// Reconciliation rewrites an edited or missing assetlinks.json, and leaves the AASA alone.
    @Test func reconciliationRewritesAssetLinks() async throws {
        let root = try PublishingTests.tempDir()
        try await TestWorld.run(live: true) { w in
            _ = try await Self.setUp(w, root: root)
            #expect(
                try await w.call(.post, "/v1/domains/example.com/publish", token: w.adminToken, json: ["reason": "go"])
                    .status == 201)
            let path = root + "/.well-known/assetlinks.json"
            let published = try #require(FileManager.default.contents(atPath: path))
            try Data("[]".utf8).write(to: URL(fileURLWithPath: path))
            let summary = try await w.withDatabase { db in
                try await PublishingService(database: db, webRootBases: []).reconcileAll(logger: Logger(label: "t"))
            }
            #expect(summary.rewritten == ["example.com \(root) assetlinks.json"])
            #expect(FileManager.default.contents(atPath: path) == published)
            try FileManager.default.removeItem(atPath: path)
            _ = try await w.withDatabase { db in
                try await PublishingService(database: db, webRootBases: []).reconcileAll(logger: Logger(label: "t"))
            }
            #expect(FileManager.default.contents(atPath: path) == published)
            let clean = try await w.withDatabase { db in
                try await PublishingService(database: db, webRootBases: []).reconcileAll(logger: Logger(label: "t"))
            }
            #expect(clean.rewritten.isEmpty && clean.checked == 2)
        }
    }

    /// One rule list for both platforms: an Android app that follows an iOS app of its team is
    /// rendered with that app's rules, and a rule with no Android form is refused on the iOS write.
    @Test func anAndroidAppCanFollowAnIOSAppsRules() async throws {
        let root = try PublishingTests.tempDir()
        try await TestWorld.run(live: true) { w in
            let (shop, blog) = try await Self.setUp(w, root: root)
            let twin = try await w.call(
                .post, "/v1/teams/shop/apps", token: shop,
                json: [
                    "appID": "com.shop.twin", "platform": "android", "fingerprints": [Self.upload],
                    "rulesFrom": Self.shopIOS,
                ])
            #expect(twin.status == 201, "\(twin.text)")
            #expect(twin.object["rulesFrom"] as? String == Self.shopIOS)
            let draft = try await w.call(.get, "/v1/domains/example.com/assetlinks", token: w.adminToken)
            let statement = (draft.object["statements"] as? [[String: Any]])?.first {
                Self.package($0) == "com.shop.twin"
            }
            let extensions = statement?["relation_extensions"] as? [String: Any]
            let components =
                (extensions?["delegate_permission/common.handle_all_urls"] as? [String: Any])?[
                    "dynamic_app_link_components"] as? [[String: Any]]
            #expect(components?.first?["/"] as? String == "/shop/*", "\(draft.text)")

            // Its rules are the iOS app's: written there, checked for both platforms there.
            let own = try await w.call(
                .put, Self.rules("com.shop.twin"), token: shop, json: ["rules": [["/": "/shop/*"]]])
            #expect(own.status == 422 && own.problemRules == ["rules-from"], "\(own.text)")
            let caseless = try await w.call(
                .put, Self.rules(Self.shopIOS), token: shop,
                json: ["rules": [["/": "/shop/*", "caseSensitive": false]]])
            #expect(caseless.status == 422, "\(caseless.text)")
            #expect(caseless.problemFields == ["/rules/0/caseSensitive"] && caseless.problemRules == ["A001"])
            #expect(caseless.text.contains("com.shop.twin"))
            // The app named is the iOS app whose rules are written: not called an "Android app" (issue 24).
            #expect(!caseless.text.contains("Android app \(Self.shopIOS)"), "\(caseless.text)")
            #expect(caseless.text.contains("app \(Self.shopIOS) of team shop"), "\(caseless.text)")
            let moved = try await w.call(
                .put, Self.rules(Self.shopIOS), token: shop, json: ["rules": [["/": "/shop/new/*"]]])
            #expect(moved.status == 200)
            #expect(
                try await w.call(.get, "/v1/domains/example.com/assetlinks", token: w.adminToken).text.contains("new"))

            // Only an iOS app of the same team can be followed, and a followed app stays while followed.
            #expect(
                try await w.call(
                    .post, "/v1/teams/blog/apps", token: blog,
                    json: [
                        "appID": "com.blog.twin", "platform": "android", "fingerprints": [Self.upload],
                        "rulesFrom": Self.shopIOS,
                    ]
                ).problemRules == ["exists"])
            #expect(
                try await w.call(.patch, "/v1/apps/com.shop.twin", token: shop, json: ["rulesFrom": Self.shopAndroid])
                    .problemRules == ["platform"])
            #expect(try await w.call(.delete, "/v1/apps/\(Self.shopIOS)", token: shop).status == 409)
            #expect(
                try await w.call(.patch, "/v1/apps/\(Self.shopAndroid)", token: shop, json: ["rulesFrom": Self.shopIOS])
                    .problemRules == ["own-rules"])

            // Keeping its own rules again: the iOS app may use iOS-only rules again.
            let apart = try await w.call(.patch, "/v1/apps/com.shop.twin", token: shop, json: ["rulesFrom": ""])
            #expect(apart.status == 200 && apart.object["rulesFrom"] == nil, "\(apart.text)")
            #expect(
                try await w.call(
                    .put, Self.rules(Self.shopIOS), token: shop,
                    json: ["rules": [["/": "/shop/*", "caseSensitive": false]]]
                ).status == 200)
        }
    }

    /// A suspended team's Android apps leave assetlinks.json with its iOS apps, and come back on resume.
    @Test func aSuspensionTakesAndroidAppsOutToo() async throws {
        let root = try PublishingTests.tempDir()
        try await TestWorld.run(live: true) { w in
            _ = try await Self.setUp(w, root: root)
            func packages() async throws -> [String] {
                let draft = try await w.call(.get, "/v1/domains/example.com/assetlinks", token: w.adminToken)
                return (draft.object["statements"] as? [[String: Any]] ?? []).compactMap(Self.package)
            }
            #expect(try await packages() == [Self.blogAndroid, Self.shopAndroid])
            let suspended = try await w.call(
                .post, "/v1/domains/example.com/suspensions", token: w.adminToken,
                json: ["team": "shop", "reason": "leaked key"])
            #expect(suspended.status == 201, "\(suspended.text)")
            #expect(try await packages() == [Self.blogAndroid])
            #expect(
                try await w.call(.delete, "/v1/domains/example.com/suspensions/shop", token: w.adminToken).status == 200
            )
            #expect(try await packages() == [Self.blogAndroid, Self.shopAndroid])
        }
    }
}
