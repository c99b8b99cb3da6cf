import AASATestSupport
import Foundation
import HTTPTypes
import Testing

/// A body is parsed only after its sender is known to be allowed: the route is the one the router
/// matched, however the path is spelled, and a path no route matches never has its body read.
/// Before, `PUT /v1/apps/{appID}/passkeys`, `POST /v1/teams/` (a trailing slash) and paths of no
/// route parsed the body first, so a body's fault answered before the token's.
@Suite struct EarlyRefusalTests {
    /// Valid JSON the input check refuses (null), and JSON that does not parse.
    static let refusable = "{\"a\": null}"
    static let broken = "{\"a\": null, \"a\": ["

    @Test func theRouterMatchedRouteDecidesBeforeTheBodyIsRead() async throws {
        try await TestWorld.run { w in
            for team in ["shop", "blog"] { try #require(try await w.createTeam(team).status == 201) }
            let app = try await w.call(
                .post, "/v1/teams/blog/apps", token: w.adminToken, json: ["appID": "ABCDE12345.com.blog.app"])
            try #require(app.status == 201, "\(app.text)")
            let shop = try await w.teamToken("shop", scopes: ["write"]).secret
            for body in [Self.refusable, Self.broken] {
                // Admin routes, spelled with a trailing slash: the router matches them all the same.
                for (method, path) in [
                    ("POST", "/v1/teams/"), ("PUT", "/v1/oidc/console-mappings/"), ("POST", "/v1/domains/"),
                    ("PUT", "/v1/guardrails/"),
                ] {
                    let reply = try await w.call(.init(method)!, path, token: shop, raw: body)
                    #expect(reply.status == 403, "\(method) \(path): \(reply.status) \(reply.text)")
                }
                // Every route under an app, passkeys included: another team's app is not revealed.
                for (method, suffix) in [
                    ("PUT", "/passkeys"), ("PATCH", ""), ("PUT", "/builds"), ("PUT", "/passkeys/"),
                ] {
                    let path = "/v1/apps/ABCDE12345.com.blog.app\(suffix)"
                    let reply = try await w.call(.init(method)!, path, token: shop, raw: body)
                    #expect(reply.status == 404, "\(method) \(path): \(reply.status) \(reply.text)")
                }
                // No route: 404, whatever the body.
                for path in ["/v1/nothing-here", "/v1/teams/shop/nothing"] {
                    let reply = try await w.call(.post, path, token: shop, raw: body)
                    #expect(reply.status == 404, "POST \(path): \(reply.status) \(reply.text)")
                }
            }
            // The admin's own body is still parsed, and its faults named.
            let admin = try await w.call(.post, "/v1/teams/", token: w.adminToken, raw: "{\"name\": null}")
            #expect(admin.status == 400 && admin.problemFields == ["/name"], "\(admin.text)")
        }
    }
}
