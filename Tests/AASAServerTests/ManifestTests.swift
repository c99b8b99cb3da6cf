import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import HTTPTypes
import Testing

/// `POST /v1/teams/{team}/manifest`: plan (dry run) and apply, all or nothing, on PostgreSQL.
@Suite struct ManifestTests {
    static let shop = "ABCDE12345.com.shop.app"
    static let shopClip = "ABCDE12345.com.shop.app.Clip"
    static let news = "FGHIJ67890.com.news.app"

    /// Two teams on example.com (`shop` owns /shop, `news` owns /news) and shop alone on shop.example.
    static func setUp(_ w: TestWorld) async throws -> (shop: String, news: String) {
        try await w.createTeam("shop")
        try await w.createTeam("news")
        for host in ["example.com", "shop.example"] {
            try #require(
                try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": host]).status == 201)
        }
        try #require(
            try await w.call(
                .put, "/v1/domains/example.com/grants/shop", token: w.adminToken,
                json: ["pathPrefixes": ["/shop"], "services": ["webcredentials", "appclips"]]
            ).status == 200)
        try #require(
            try await w.call(
                .put, "/v1/domains/shop.example/grants/shop", token: w.adminToken,
                json: ["pathPrefixes": ["/"], "services": ["webcredentials", "appclips"]]
            ).status == 200)
        try #require(
            try await w.call(
                .put, "/v1/domains/example.com/grants/news", token: w.adminToken, json: ["pathPrefixes": ["/news"]]
            ).status == 200)
        return (
            try await w.teamToken("shop", scopes: ["write"]).secret,
            try await w.teamToken("news", scopes: ["write"]).secret
        )
    }

    /// shop's manifest as JSON: its app (with `services`) and App Clip, `paths` on example.com, and
    /// two rules on shop.example unless `dropShopExample`; `extraHost` adds an empty domain entry.
    static func shopManifest(
        _ paths: [String] = ["/shop/*"], services: [String] = ["applinks", "webcredentials"],
        dropShopExample: Bool = false, extraHost: String? = nil, publish: Bool = false, reason: String? = nil
    ) -> String {
        let rules = paths.map { #"{"/":"\#($0)"}"# }.joined(separator: ",")
        var domains = [#"{"host":"example.com","apps":[{"appID":"\#(shop)","rules":[\#(rules)]}]}"#]
        if !dropShopExample {
            domains.append(
                #"""
                {"host":"shop.example","apps":[{"appID":"\#(shop)","rules":[{"/":"/*"},{"/":"/admin/*",\#
                "exclude":true}]}]}
                """#
            )
        }
        if let extraHost { domains.append(#"{"host":"\#(extraHost)","apps":[]}"#) }
        let serviceList = services.map { "\"\($0)\"" }.joined(separator: ",")
        var extra = publish ? #","publish":true"# : ""
        if let reason { extra += #","reason":"\#(reason)""# }
        return
            #"""
            {"apps":[{"appID":"\#(shop)","services":[\#(serviceList)]},{"appID":"\#(shopClip)",\#
            "services":["appclips"]}],"domains":[\#(domains.joined(separator: ","))]\#(extra)}
            """#
    }

    /// Every `/` pattern in a domain's draft document (the runtime re-encodes it, escaping slashes).
    static func patterns(_ w: TestWorld, _ host: String) async throws -> [String] {
        let document = try await w.call(.get, "/v1/domains/\(host)/aasa", token: w.adminToken).object
        let details = (document["applinks"] as? [String: Any])?["details"] as? [[String: Any]] ?? []
        return details.flatMap { ($0["components"] as? [[String: Any]] ?? []).compactMap { $0["/"] as? String } }
    }

    static func auditCount(_ w: TestWorld) async throws -> Int {
        let page = try await w.call(.get, "/v1/audit?limit=500", token: w.adminToken)
        return (page.object["items"] as? [Any])?.count ?? -1
    }

    @Test func planAppliesNothingThenApplyThenNoOp() async throws {
        try await TestWorld.run { w in
            let (shopToken, _) = try await Self.setUp(w)
            let auditBefore = try await Self.auditCount(w)

            let plan = try await w.call(
                .post, "/v1/teams/shop/manifest?dryRun=true", token: shopToken, raw: Self.shopManifest())
            #expect(plan.status == 200, "\(plan.text)")
            #expect(plan.object["dryRun"] as? Bool == true)
            #expect(plan.object["changed"] as? Bool == true)
            let apps = plan.object["apps"] as? [[String: Any]] ?? []
            #expect(apps.map { $0["action"] as? String } == ["create", "create"])
            let domains = plan.object["domains"] as? [[String: Any]] ?? []
            #expect(domains.compactMap { $0["host"] as? String }.sorted() == ["example.com", "shop.example"])
            let diff = domains.first { $0["host"] as? String == "example.com" }?["diff"] as? [String: Any]
            let openers = diff?["openerChanges"] as? [[String: Any]] ?? []
            #expect(
                openers.contains {
                    ($0["url"] as? String)?.contains("/shop/") == true && $0["after"] as? String == Self.shop
                })
            // The dry run rolled back: no app, no rules, no audit event.
            #expect(try await w.call(.get, "/v1/apps/\(Self.shop)", token: w.adminToken).status == 404)
            #expect(try await Self.auditCount(w) == auditBefore)

            let tag = try #require(plan.object["stateTag"] as? String)
            let applied = try await w.call(
                .post, "/v1/teams/shop/manifest", token: shopToken, raw: Self.shopManifest(),
                headers: ["If-Match": tag])
            #expect(applied.status == 200, "\(applied.text)")
            #expect(applied.object["changed"] as? Bool == true)
            // Two apps created, two rule sets written: four audit events, no more.
            #expect(try await Self.auditCount(w) == auditBefore + 4)
            #expect(try await Self.patterns(w, "shop.example") == ["/*", "/admin/*"])
            let document = try await w.call(.get, "/v1/domains/shop.example/aasa", token: w.adminToken).object
            #expect((document["appclips"] as? [String: Any])?["apps"] as? [String] == [Self.shopClip])
            let ruleIDs =
                try await w.call(.get, "/v1/domains/shop.example/apps/\(Self.shop)/rules", token: shopToken)
                .object["rules"] as? [[String: Any]]

            // The same manifest again: nothing changes, the tag is the one apply returned, IDs stay.
            let again = try await w.call(.post, "/v1/teams/shop/manifest", token: shopToken, raw: Self.shopManifest())
            #expect(again.object["changed"] as? Bool == false)
            #expect(again.object["stateTag"] as? String == applied.object["stateTag"] as? String)
            #expect(try await Self.auditCount(w) == auditBefore + 4)
            let idsAfter =
                try await w.call(.get, "/v1/domains/shop.example/apps/\(Self.shop)/rules", token: shopToken)
                .object["rules"] as? [[String: Any]]
            #expect(ruleIDs?.compactMap { $0["id"] as? String } == idsAfter?.compactMap { $0["id"] as? String })

            // The planned tag is now stale: applying a different manifest with it is refused.
            let stale = try await w.call(
                .post, "/v1/teams/shop/manifest", token: shopToken, raw: Self.shopManifest(["/shop/new/*"]),
                headers: ["If-Match": tag])
            #expect(stale.status == 412)
            #expect(try await Self.auditCount(w) == auditBefore + 4)
        }
    }

    @Test func invalidManifestChangesNothingAndNamesEveryField() async throws {
        try await TestWorld.run { w in
            let (shopToken, _) = try await Self.setUp(w)
            #expect(
                try await w.call(.post, "/v1/teams/shop/manifest", token: shopToken, raw: Self.shopManifest()).status
                    == 200)
            let auditBefore = try await Self.auditCount(w)
            let before = try await w.call(.get, "/v1/domains/example.com/aasa", token: w.adminToken).body

            // Outside the grant, a bad pattern, and an unknown domain: one answer names all three.
            let manifest = Self.shopManifest(["/shop/ok/*", "/news/*", "/shop/$(nope)"], extraHost: "nowhere.example")
            let refused = try await w.call(.post, "/v1/teams/shop/manifest", token: shopToken, raw: manifest)
            #expect(refused.status == 422)
            #expect(refused.headers[.contentType] == "application/problem+json")
            #expect(refused.problemFields.contains("/domains/2/host"), "\(refused.text)")

            let known = Self.shopManifest(["/shop/ok/*", "/news/*"])
            let outside = try await w.call(.post, "/v1/teams/shop/manifest", token: shopToken, raw: known)
            #expect(outside.status == 422)
            #expect(outside.problemFields == ["/domains/0/apps/0/rules/1/~1"], "\(outside.text)")
            #expect(outside.problemRules == ["outside-grant"])

            let badPattern = try await w.call(
                .post, "/v1/teams/shop/manifest", token: shopToken, raw: Self.shopManifest(["/shop/$(nope)"]))
            #expect(badPattern.status == 422)
            #expect(
                badPattern.problemFields.first?.hasPrefix("/domains/0/apps/0/rules/0") == true, "\(badPattern.text)")

            #expect(try await Self.auditCount(w) == auditBefore)
            #expect(try await w.call(.get, "/v1/domains/example.com/aasa", token: w.adminToken).body == before)
        }
    }

    @Test func ownershipAndRemoval() async throws {
        try await TestWorld.run { w in
            let (shopToken, newsToken) = try await Self.setUp(w)
            #expect(
                try await w.call(.post, "/v1/teams/shop/manifest", token: shopToken, raw: Self.shopManifest()).status
                    == 200)

            // news cannot take shop's app over through a manifest.
            let takeover = #"{"apps":[{"appID":"\#(Self.shop)"}],"domains":[]}"#
            let refused = try await w.call(.post, "/v1/teams/news/manifest", token: newsToken, raw: takeover)
            #expect(refused.status == 422)
            #expect(refused.problemRules == ["owned-by-another-team"])
            // nor apply a manifest for team shop.
            #expect(try await w.call(.post, "/v1/teams/shop/manifest", token: newsToken, raw: takeover).status == 404)

            // Dropping shop.example from the manifest removes the app's rules there.
            let dropped = try await w.call(
                .post, "/v1/teams/shop/manifest", token: shopToken, raw: Self.shopManifest(dropShopExample: true))
            #expect(dropped.status == 200, "\(dropped.text)")
            let shopExample = (dropped.object["domains"] as? [[String: Any]])?.first {
                $0["host"] as? String == "shop.example"
            }
            #expect((shopExample?["rules"] as? [[String: Any]])?.first?["action"] as? String == "clear")
            let rules = try await w.call(.get, "/v1/domains/shop.example/apps/\(Self.shop)/rules", token: shopToken)
            #expect((rules.object["rules"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func twoTeamsApplyingToOneDomainAtOnceLoseNothing() async throws {
        try await TestWorld.run { w in
            let (shopToken, newsToken) = try await Self.setUp(w)
            let news =
                #"""
                {"apps":[{"appID":"\#(Self.news)"}],"domains":[{"host":"example.com",\#
                "apps":[{"appID":"\#(Self.news)","rules":[{"/":"/news/*"}]}]}]}
                """#
            for round in 0..<5 {
                async let a = w.call(
                    .post, "/v1/teams/shop/manifest", token: shopToken, raw: Self.shopManifest(["/shop/\(round)/*"]))
                async let b = w.call(.post, "/v1/teams/news/manifest", token: newsToken, raw: news)
                let (ra, rb) = try await (a, b)
                #expect(ra.status == 200, "\(ra.text)")
                #expect(rb.status == 200, "\(rb.text)")
            }
            #expect(try await Self.patterns(w, "example.com").sorted() == ["/news/*", "/shop/4/*"])
        }
    }

    @Test func applyWithPublish() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-manifest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try await TestWorld.run { w in
            let (shopToken, _) = try await Self.setUp(w)
            #expect(
                try await w.call(
                    .patch, "/v1/domains/shop.example", token: w.adminToken, json: ["webRoots": [root.path]]
                ).status == 200)
            let noReason = try await w.call(
                .post, "/v1/teams/shop/manifest", token: shopToken, raw: Self.shopManifest(publish: true))
            #expect(noReason.problemFields == ["/reason"])
            let applied = try await w.call(
                .post, "/v1/teams/shop/manifest", token: shopToken,
                raw: Self.shopManifest(publish: true, reason: "release 1.2"))
            #expect(applied.status == 200, "\(applied.text)")
            let published = (applied.object["domains"] as? [[String: Any]])?.first {
                $0["host"] as? String == "shop.example"
            }
            #expect((published?["publish"] as? [String: Any])?["created"] as? Bool == true)
            let file = root.appendingPathComponent(".well-known/apple-app-site-association")
            let bytes = try Data(contentsOf: file)
            let revision = try await w.call(.get, "/v1/domains/shop.example/revisions/1/file", token: w.adminToken)
            #expect(Array(bytes) == revision.body)
        }
    }
}
