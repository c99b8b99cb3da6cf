import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import HTTPTypes
import Testing

/// Issue 28, gap 1: an assetlinks.json rollback runs the domain's policies, as an AASA rollback
/// does: it cannot reopen a protected path added since, nor break an Android golden URL, unless an
/// admin forces it with a reason.
@Suite struct AssetLinksRollbackPolicyTests {
    static let rollback = "/v1/domains/example.com/assetlinks/revisions/1/rollback"

    /// Revision 1 of assetlinks.json lets com.shop.app open /shop/*; revision 2 only /shop/new/*, and
    /// shop's iOS app moves to /shop/new/* too (so only the Android rollback reaches the rest).
    static func twoRevisions(_ w: TestWorld, root: String) async throws -> String {
        let (shop, _) = try await AndroidTests.setUp(w, root: root)
        let first = try await w.call(
            .post, "/v1/domains/example.com/publish", token: w.adminToken, json: ["reason": "one"])
        try #require(first.status == 201, "\(first.text)")
        try #require(
            try await w.call(
                .put, AndroidTests.rules(AndroidTests.shopAndroid), token: shop, json: ["rules": [["/": "/shop/new/*"]]]
            ).status == 200)
        try #require(
            try await w.call(
                .put, AndroidTests.rules(AndroidTests.shopIOS), token: shop, json: ["rules": [["/": "/shop/new/*"]]]
            ).status == 200)
        let second = try await w.call(
            .post, "/v1/domains/example.com/publish", token: w.adminToken, json: ["reason": "two"])
        try #require(second.status == 201, "\(second.text)")
        return shop
    }

    static func currentAssetLinks(_ w: TestWorld) async throws -> Int? {
        let list = try await w.call(.get, "/v1/domains/example.com/assetlinks/revisions", token: w.adminToken)
        return (list.object["items"] as? [[String: Any]])?.compactMap { $0["number"] as? Int }.max()
    }

    @Test func aRollbackCannotReopenAProtectedPathAddedSince() async throws {
        let root = try PublishingTests.tempDir()
        try await TestWorld.run { w in
            _ = try await Self.twoRevisions(w, root: root)
            let guarded = try await w.call(
                .put, "/v1/domains/example.com/guardrails", token: w.adminToken,
                json: ["protectedPaths": ["/shop/secret/*"]])
            #expect(guarded.status == 200, "\(guarded.text)")
            let refused = try await w.call(.post, Self.rollback, token: w.adminToken, json: ["reason": "undo"])
            #expect(refused.status == 409, "\(refused.text)")
            #expect(refused.object["type"] as? String == "urn:aasad:problem:protected-path", "\(refused.text)")
            let found = refused.object["violations"] as? [[String: Any]] ?? []
            #expect(found.first?["appID"] as? String == AndroidTests.shopAndroid, "\(refused.text)")
            #expect(found.first?["platform"] as? String == "android")
            #expect(try await Self.currentAssetLinks(w) == 2)
            let forced = try await w.call(
                .post, Self.rollback + "?force=true&reason=incident%20rollback", token: w.adminToken,
                json: ["reason": "undo"])
            #expect(forced.status == 201, "\(forced.text)")
            #expect(try await Self.currentAssetLinks(w) == 3)
        }
    }

    @Test func aRollbackCannotBreakAnAndroidGoldenURL() async throws {
        let root = try PublishingTests.tempDir()
        try await TestWorld.run { w in
            let shop = try await Self.twoRevisions(w, root: root)
            let expectation = try await w.call(
                .post, GoldenURLTests.expectations, token: shop,
                json: [
                    "url": "https://example.com/shop/old/1", "kind": "notApp", "appID": AndroidTests.shopAndroid,
                    "source": "published",
                ])
            #expect(expectation.status == 201, "\(expectation.text)")
            let refused = try await w.call(.post, Self.rollback, token: w.adminToken, json: ["reason": "undo"])
            #expect(refused.status == 409, "\(refused.text)")
            #expect(refused.object["type"] as? String == "urn:aasad:problem:expectation-broken", "\(refused.text)")
            #expect(refused.text.contains("https://example.com/shop/old/1"))
            #expect(try await Self.currentAssetLinks(w) == 2)
            // Without the expectation the same rollback goes through.
            let id = try #require(expectation.object["id"] as? String)
            #expect(
                try await w.call(.delete, GoldenURLTests.expectations + "/\(id)", token: shop).status == 204)
            let undone = try await w.call(.post, Self.rollback, token: w.adminToken, json: ["reason": "undo"])
            #expect(undone.status == 201, "\(undone.text)")
        }
    }
}
