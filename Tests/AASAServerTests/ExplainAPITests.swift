import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import HTTPTypes
import Testing

/// Issue 14, explain through the API: the rule named by team and rule ID, the server's own hints
/// (an alias host), and the expected app's slip.
@Suite struct ExplainAPITests {
    @Test func matchExplainsWithTheStoredRulesAndTheHost() async throws {
        try await TestWorld.run { w in
            let (shop, _) = try await GoldenURLTests.setUp(w)
            let reply = try await w.call(
                .post, "/v1/match", token: shop,
                json: [
                    "url": "https://www.example.com/Shop/1", "source": "draft", "explain": true,
                    "expectedAppID": GoldenURLTests.shopApp,
                ])
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.object["appID"] == nil)
            let explanation = try #require(reply.object["explanation"] as? [String: Any])
            let hints = (explanation["hints"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            #expect(hints.contains("host-alias") && hints.contains("case"), "\(hints)")
            let closest = explanation["closest"] as? [String: Any] ?? [:]
            #expect(closest["team"] as? String == "shop")
            #expect((closest["ruleID"] as? String)?.count == 36)
            #expect(closest["subject"] as? String == "/Shop/1" && closest["pattern"] as? String == "/shop/*")
            let apps = explanation["apps"] as? [[String: Any]] ?? []
            // A team sees its own draft and the rest as published (nothing yet): its app alone, deciding none.
            #expect(apps.count == 1 && apps.allSatisfy { $0["decision"] as? String == "none" })
            // Without explain, no explanation.
            let plain = try await w.call(
                .post, "/v1/match", token: shop, json: ["url": "https://example.com/shop/1", "source": "draft"])
            #expect(plain.object["explanation"] == nil && plain.object["appID"] as? String == GoldenURLTests.shopApp)
        }
    }
}
