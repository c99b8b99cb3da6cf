import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import HTTPTypes
import Testing

/// Issue 15, finding 1: a rollback republishes old bytes, so it must pass today's grants and apps,
/// and a team may only roll back its own part of the file.
@Suite struct RollbackBoundsTests {
    static let blogApp = "ABCDE12345.com.blog.app"
    static let shopApp = "FGHIJ67890.com.shop.app"

    /// blog holds /promo and /blog, shop holds /shop; blog publishes /promo/* as revision 1.
    static func setUp(_ w: TestWorld) async throws -> (blog: String, shop: String) {
        try await w.createTeam("blog")
        try await w.createTeam("shop")
        let blog = try await w.teamToken("blog", scopes: ["write"]).secret
        let shop = try await w.teamToken("shop", scopes: ["write"]).secret
        try #require(
            try await w.call(.post, "/v1/teams/blog/apps", token: blog, json: ["appID": blogApp]).status == 201)
        try #require(
            try await w.call(.post, "/v1/teams/shop/apps", token: shop, json: ["appID": shopApp]).status == 201)
        try #require(
            try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "example.com"]).status == 201)
        try #require(
            try await w.call(
                .put, "/v1/domains/example.com/grants/blog", token: w.adminToken,
                json: ["pathPrefixes": ["/promo", "/blog"]]
            ).status == 200)
        try #require(
            try await w.call(
                .put, "/v1/domains/example.com/grants/shop", token: w.adminToken,
                json: ["pathPrefixes": ["/shop"]]
            ).status == 200)
        try #require(
            try await w.call(
                .put, "/v1/domains/example.com/apps/\(blogApp)/rules", token: blog,
                json: ["rules": [["/": "/promo/*"], ["/": "/blog/*"]]]
            ).status == 200)
        try #require(
            try await w.call(
                .put, "/v1/domains/example.com/apps/\(shopApp)/rules", token: shop,
                json: ["rules": [["/": "/shop/*"]]]
            ).status == 200)
        try #require(
            try await w.call(.post, "/v1/domains/example.com/publish", token: blog, json: ["reason": "r1"]).status
                == 201)
        return (blog, shop)
    }

    static func servedOpener(_ w: TestWorld, _ url: String, token: String) async throws -> String? {
        try await w.call(.post, "/v1/match", token: token, json: ["url": url]).object["appID"] as? String
    }

    /// The attack from the issue: the grant on /promo moves to shop, and blog rolls back to the
    /// revision in which blog's app opened /promo. Refused for blog and for an admin alike, naming
    /// the rule out of bounds; the served file is unchanged.
    @Test func rollbackCannotReopenPathsAGrantNoLongerCovers() async throws {
        try await TestWorld.run { w in
            let (blog, shop) = try await Self.setUp(w)
            #expect(
                try await w.call(
                    .put, "/v1/domains/example.com/apps/\(Self.blogApp)/rules", token: blog,
                    json: ["rules": [["/": "/blog/*"]]]
                ).status == 200)
            #expect(
                try await w.call(
                    .put, "/v1/domains/example.com/grants/blog", token: w.adminToken,
                    json: ["pathPrefixes": ["/blog"]]
                ).status == 200)
            #expect(
                try await w.call(
                    .put, "/v1/domains/example.com/grants/shop", token: w.adminToken,
                    json: ["pathPrefixes": ["/shop", "/promo"]]
                ).status == 200)
            #expect(
                try await w.call(.post, "/v1/domains/example.com/publish", token: shop, json: ["reason": "r2"]).status
                    == 201)
            #expect(try await Self.servedOpener(w, "https://example.com/promo/1", token: shop) == nil)

            for token in [blog, w.adminToken] {
                let reply = try await w.call(
                    .post, "/v1/domains/example.com/revisions/1/rollback", token: token, json: ["reason": "undo"])
                #expect(reply.status == 422, "\(reply.text)")
                #expect(reply.headers[.contentType] == "application/problem+json")
                #expect(reply.problemRules.contains("grant"))
                #expect(reply.problemFields.contains("/applinks/details/0/components/0"))
                #expect(reply.text.contains("/promo/*"))
            }
            #expect(try await Self.servedOpener(w, "https://example.com/promo/1", token: shop) == nil)
            let revisions = try await w.call(.get, "/v1/domains/example.com/revisions", token: w.adminToken)
            #expect((revisions.object["items"] as? [[String: Any]])?.count == 2)
        }
    }

    /// Rules of an app deleted since cannot come back.
    @Test func rollbackCannotReviveADeletedApp() async throws {
        try await TestWorld.run { w in
            let (blog, _) = try await Self.setUp(w)
            #expect(try await w.call(.delete, "/v1/apps/\(Self.blogApp)", token: blog).status == 204)
            #expect(
                try await w.call(.post, "/v1/domains/example.com/publish", token: w.adminToken, json: ["reason": "r2"])
                    .status == 201)
            let reply = try await w.call(
                .post, "/v1/domains/example.com/revisions/1/rollback", token: w.adminToken, json: ["reason": "undo"])
            #expect(reply.status == 422)
            #expect(reply.problemRules.contains("app-exists"))
        }
    }

    /// A team rolls back only its own part: a rollback that would also change shop's rules (drop
    /// an exclude shop added since) is 403 for blog, and allowed for an admin.
    @Test func aTeamRollsBackOnlyItsOwnPart() async throws {
        try await TestWorld.run { w in
            let (blog, shop) = try await Self.setUp(w)
            #expect(
                try await w.call(
                    .put, "/v1/domains/example.com/apps/\(Self.shopApp)/rules", token: shop,
                    json: ["rules": [["/": "/shop/private/*", "exclude": true], ["/": "/shop/*"]]]
                ).status == 200)
            #expect(
                try await w.call(.post, "/v1/domains/example.com/publish", token: shop, json: ["reason": "r2"]).status
                    == 201)
            let refused = try await w.call(
                .post, "/v1/domains/example.com/revisions/1/rollback", token: blog, json: ["reason": "undo"])
            #expect(refused.status == 403, "\(refused.text)")
            #expect(refused.text.contains("shop"))
            #expect(try await Self.servedOpener(w, "https://example.com/shop/private/1", token: shop) == nil)

            // blog's own change rolls back when shop's part is unchanged.
            #expect(
                try await w.call(
                    .put, "/v1/domains/example.com/apps/\(Self.blogApp)/rules", token: blog,
                    json: ["rules": [["/": "/blog/*"]]]
                ).status == 200)
            #expect(
                try await w.call(.post, "/v1/domains/example.com/publish", token: blog, json: ["reason": "r3"]).status
                    == 201)
            let own = try await w.call(
                .post, "/v1/domains/example.com/revisions/2/rollback", token: blog, json: ["reason": "undo"])
            #expect(own.status == 201, "\(own.text)")
            #expect(try await Self.servedOpener(w, "https://example.com/promo/1", token: blog) == Self.blogApp)

            let admin = try await w.call(
                .post, "/v1/domains/example.com/revisions/1/rollback", token: w.adminToken, json: ["reason": "undo"])
            #expect(admin.status == 201, "\(admin.text)")
            #expect(try await Self.servedOpener(w, "https://example.com/shop/private/1", token: shop) == Self.shopApp)
        }
    }
}
