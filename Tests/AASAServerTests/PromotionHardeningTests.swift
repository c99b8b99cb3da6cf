import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import HTTPTypes
import Testing

/// Issue 41: promotion runs the rule-write check on every target, refuses a target with an
/// unpublished change to either file, records truly where each revision came from, and the
/// entitlements of an app with builds are asked for per environment.
@Suite struct PromotionHardeningTests {
    static let news = "FGHIJ67890.com.example.news"

    /// A second team, `news`, with an app, granted `/` on staging and `grantOnProd` on prod (none
    /// when nil), whose staging rules are `rules`, published.
    static func newsTeam(_ w: TestWorld, grantOnProd: [String]?, rules: [[String: Any]]) async throws {
        try await w.createTeam("news")
        let news = try await w.teamToken("news", scopes: ["write"]).secret
        try #require(
            try await w.call(.post, "/v1/teams/news/apps", token: news, json: ["appID": Self.news]).status == 201)
        try #require(
            try await w.call(
                .put, "/v1/domains/staging.example.com/grants/news", token: w.adminToken, json: ["pathPrefixes": ["/"]]
            ).status == 200)
        if let grantOnProd {
            try #require(
                try await w.call(
                    .put, "/v1/domains/example.com/grants/news", token: w.adminToken,
                    json: ["pathPrefixes": grantOnProd]
                ).status == 200)
        }
        let put = try await w.call(
            .put, "/v1/domains/staging.example.com/apps/\(Self.news)/rules", token: news, json: ["rules": rules])
        try #require(put.status == 200, "\(put.text)")
        let published = try await w.call(
            .post, "/v1/domains/staging.example.com/publish", token: w.adminToken, json: ["reason": "news"])
        try #require(published.status == 201, "\(published.text)")
    }

    @Test func aCatchAllGrantedOnStagingIsRefusedOnAProdGrantOfBlog() async throws {
        try await TestWorld.run { w in
            let (_, roots) = try await EnvironmentTests.setUp(w)
            let prodRoot = try #require(roots["prod"])
            try await Self.newsTeam(w, grantOnProd: ["/blog"], rules: [["/": "/*"]])
            let before = try EnvironmentTests.file(prodRoot, "apple-app-site-association")
            for apply in [false, true] {
                let refused = try await w.call(
                    .post, "/v1/promotions", token: w.adminToken,
                    json: ["from": "staging", "to": "prod", "apply": apply])
                #expect(refused.status == 422, "\(refused.text)")
                #expect(refused.text.contains("example.com") && refused.text.contains(Self.news), "\(refused.text)")
                #expect(
                    refused.text.contains("\"outside-grant\"") || refused.text.contains("\"catch-all\""),
                    "\(refused.text)")
            }
            #expect(try EnvironmentTests.file(prodRoot, "apple-app-site-association") == before)
            let rules = try await w.call(.get, "/v1/domains/example.com/apps/\(Self.news)/rules", token: w.adminToken)
            #expect(!rules.text.contains("/*"), "nothing was written: \(rules.text)")
        }
    }

    @Test func aTeamWithoutAGrantOnProdIsRefused() async throws {
        try await TestWorld.run { w in
            let (_, _) = try await EnvironmentTests.setUp(w)
            try await Self.newsTeam(w, grantOnProd: nil, rules: [["/": "/news/*"]])
            let refused = try await w.call(
                .post, "/v1/promotions", token: w.adminToken, json: ["from": "staging", "to": "prod"])
            #expect(refused.status == 422 && refused.text.contains("\"no-grant\""), "\(refused.text)")
            #expect(refused.text.contains(Self.news), "\(refused.text)")
        }
    }

    @Test func rulesInsideTheProdGrantArePromotedAndAudited() async throws {
        try await TestWorld.run { w in
            let (_, roots) = try await EnvironmentTests.setUp(w)
            try await Self.newsTeam(w, grantOnProd: ["/blog"], rules: [["/": "/blog/*"]])
            let applied = try await w.call(
                .post, "/v1/promotions", token: w.adminToken, json: ["from": "staging", "to": "prod", "apply": true])
            #expect(applied.status == 200, "\(applied.text)")
            #expect(
                try EnvironmentTests.file(try #require(roots["prod"]), "apple-app-site-association").contains(Self.news)
            )
            let audit = try await w.call(.get, "/v1/audit?domain=example.com", token: w.adminToken)
            #expect(audit.text.contains("promotion.rules.replace"), "\(audit.text)")
        }
    }

    @Test func anUnpublishedAssetLinksChangeOnTheTargetIsRefused() async throws {
        try await TestWorld.run { w in
            let (shop, roots) = try await EnvironmentTests.setUp(w)
            let prodRoot = try #require(roots["prod"])
            let assetLinks = try EnvironmentTests.file(prodRoot, "assetlinks.json")
            // Prod's Android build loses its Play App Signing key: only prod's assetlinks.json draft changes.
            let builds = try await w.call(.get, "/v1/apps/com.example.app/builds", token: shop)
            var list = try #require(builds.object["builds"] as? [[String: Any]], "\(builds.text)")
            for i in list.indices where list[i]["environment"] as? String == "prod" {
                list[i]["fingerprints"] = (list[i]["fingerprints"] as? [[String: Any]])?.filter {
                    $0["label"] as? String != "play-signing"
                }
                list[i]["playSigningAbsent"] = true
            }
            let put = try await w.call(.put, "/v1/apps/com.example.app/builds", token: shop, json: ["builds": list])
            try #require(put.status == 200, "\(put.text)")
            for apply in [false, true] {
                let refused = try await w.call(
                    .post, "/v1/promotions", token: w.adminToken,
                    json: ["from": "staging", "to": "prod", "apply": apply])
                #expect(refused.status == 409 && refused.text.contains("unpublished-changes"), "\(refused.text)")
                #expect(refused.text.contains("assetlinks.json"), "\(refused.text)")
            }
            #expect(try EnvironmentTests.file(prodRoot, "assetlinks.json") == assetLinks, "nobody reviewed that change")
        }
    }

    @Test func aDraftTakenIsRecordedAsTheDraftOnBothFiles() async throws {
        try await TestWorld.run { w in
            let (shop, _) = try await EnvironmentTests.setUp(w)
            let staging = "/v1/domains/staging.example.com"
            let current = try await w.call(.get, "\(staging)/revisions", token: w.adminToken)
            let base = try #require((current.object["items"] as? [[String: Any]])?.first?["number"] as? Int)
            let put = try await w.call(
                .put, "\(staging)/apps/ABCDE12345.com.example.app/rules", token: shop,
                json: ["rules": [["/": "/shop/*"], ["/": "/deals/*"]]])
            try #require(put.status == 200)
            let applied = try await w.call(
                .post, "/v1/promotions", token: w.adminToken,
                json: ["from": "staging", "to": "prod", "takeDrafts": true, "apply": true])
            #expect(applied.status == 200, "\(applied.text)")
            let revision = try #require((applied.object["domains"] as? [[String: Any]])?.first?["revision"] as? Int)
            let shown = try await w.call(.get, "/v1/domains/example.com/revisions/\(revision)", token: w.adminToken)
            let from = try #require(shown.object["promotedFrom"] as? [String: Any], "\(shown.text)")
            #expect(from["fromDraft"] as? Bool == true, "\(shown.text)")
            #expect(from["revision"] == nil, "no revision of staging holds these rules: \(shown.text)")
            #expect(from["draftBase"] as? Int == base)
            #expect((from["draftSHA256"] as? String)?.count == 64)
            // assetlinks.json's revision records its source too.
            let links = try await w.call(.get, "/v1/domains/example.com/assetlinks/revisions", token: w.adminToken)
            let newest = try #require((links.object["items"] as? [[String: Any]])?.first, "\(links.text)")
            let linksFrom = try #require(newest["promotedFrom"] as? [String: Any], "\(links.text)")
            #expect(linksFrom["host"] as? String == "staging.example.com")
            #expect(linksFrom["fromDraft"] as? Bool == true, "\(links.text)")
        }
    }

    @Test func entitlementsOfAnAppWithBuildsNeedAnEnvironment() async throws {
        try await TestWorld.run { w in
            let (shop, _) = try await EnvironmentTests.setUp(w)
            let refused = try await w.call(.get, "/v1/apps/ABCDE12345.com.example.app/entitlements", token: shop)
            #expect(refused.status == 422 && refused.text.contains("env-required"), "\(refused.text)")
            #expect(refused.text.contains("ABCDE12345.com.example.app.beta"), "names the builds: \(refused.text)")
            let staging = try await w.call(
                .get, "/v1/apps/ABCDE12345.com.example.app/entitlements?env=staging", token: shop)
            #expect(staging.status == 200, "\(staging.text)")
            #expect(staging.object["appID"] as? String == "ABCDE12345.com.example.app.beta")
            #expect(
                (staging.object["associatedDomains"] as? [String])?.contains("applinks:staging.example.com") == true)
            #expect(!staging.text.contains("applinks:example.com\""), "\(staging.text)")
        }
    }
}
