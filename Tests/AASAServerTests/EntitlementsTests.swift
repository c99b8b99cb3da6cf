import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import HTTPTypes
import Testing

/// Issue 14, entitlements: what an app needs in `com.apple.developer.associated-domains` for the
/// files published here, from its rules, services and its team's grants.
@Suite struct EntitlementsTests {
    @Test func entitlementsFollowRulesServicesAndAliases() async throws {
        try await TestWorld.run { w in
            let (shop, _) = try await GoldenURLTests.setUp(w)
            let app = GoldenURLTests.shopApp
            #expect(
                try await w.call(
                    .patch, "/v1/apps/\(app)", token: shop, json: ["services": ["applinks", "webcredentials"]]
                ).status == 200)
            #expect(
                try await w.call(
                    .put, "/v1/domains/example.com/grants/shop", token: w.adminToken,
                    json: ["pathPrefixes": ["/shop", "/deals"], "services": ["webcredentials"]]
                ).status == 200)
            #expect(
                try await w.call(
                    .post, "/v1/domains", token: w.adminToken,
                    json: ["host": "bücher.example", "aliases": ["www.bücher.example"]]
                ).status == 201)
            #expect(
                try await w.call(
                    .put, "/v1/domains/xn--bcher-kva.example/grants/shop", token: w.adminToken,
                    json: ["pathPrefixes": ["/"]]
                ).status == 200)
            #expect(
                try await w.call(
                    .put, "/v1/domains/xn--bcher-kva.example/apps/\(app)/rules", token: shop,
                    json: ["rules": [["/": "/b/*"]]]
                ).status == 200)

            let plain = try await w.call(.get, "/v1/apps/\(app)/entitlements", token: shop)
            #expect(plain.status == 200, "\(plain.text)")
            #expect(
                plain.object["associatedDomains"] as? [String] == [
                    "applinks:example.com", "applinks:www.example.com", "applinks:www.xn--bcher-kva.example",
                    "applinks:xn--bcher-kva.example",
                    "webcredentials:example.com", "webcredentials:www.example.com",
                ])
            let developer = try await w.call(.get, "/v1/apps/\(app)/entitlements?mode=developer", token: shop)
            #expect(
                (developer.object["associatedDomains"] as? [String])?.first == "applinks:example.com?mode=developer")
            let plist = try #require(developer.object["plist"] as? String)
            #expect(plist.contains("<key>com.apple.developer.associated-domains</key>"))
            #expect(plist.contains("<string>webcredentials:www.example.com?mode=developer</string>"))
            // Another team's app is not found; an unknown mode is a 400.
            let blog = try await w.teamToken("blog", scopes: ["read"]).secret
            #expect(try await w.call(.get, "/v1/apps/\(app)/entitlements", token: blog).status == 404)
            #expect(try await w.call(.get, "/v1/apps/\(app)/entitlements?mode=production", token: shop).status == 400)
        }
    }
}
