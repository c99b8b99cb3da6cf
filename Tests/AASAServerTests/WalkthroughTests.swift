import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import HTTPTypes
import Testing

/// The README's walk-through as a newcomer does it with curl: a team, a token, an app, a domain,
/// a grant and rules; the rendered document; a second team refused outside its grant; the audit.
@Suite struct WalkthroughTests {
    @Test func newcomerWalkthrough() async throws {
        try await TestWorld.run { w in
            // Teams and their tokens.
            #expect(try await w.createTeam("shop").status == 201)
            #expect(try await w.createTeam("news").status == 201)
            let shop = try await w.teamToken("shop", scopes: ["write"])
            let news = try await w.teamToken("news", scopes: ["write"])
            #expect(shop.secret.hasPrefix("aasa_"))

            // Each team registers its app with its own token.
            let shopApp = try await w.call(
                .post, "/v1/teams/shop/apps", token: shop.secret,
                json: ["appID": "ABCDE12345.com.example.shop", "services": ["applinks", "webcredentials"]])
            #expect(shopApp.status == 201)
            #expect(shopApp.etag == "\"1\"")
            #expect(
                try await w.call(
                    .post, "/v1/teams/news/apps", token: news.secret,
                    json: ["appID": "FGHIJ67890.com.example.news"]
                ).status == 201)

            // The admin creates the domain (Unicode accepted, stored as punycode) and grants path space.
            let domain = try await w.call(
                .post, "/v1/domains", token: w.adminToken,
                json: ["host": "Bücher.example", "aliases": ["www.bücher.example"]])
            #expect(domain.status == 201)
            #expect(domain.object["host"] as? String == "xn--bcher-kva.example")
            #expect(domain.object["unicodeHost"] as? String == "bücher.example")
            let host = "xn--bcher-kva.example"
            #expect(
                try await w.call(
                    .put, "/v1/domains/\(host)/grants/shop", token: w.adminToken,
                    json: ["pathPrefixes": ["/shop"], "services": ["webcredentials"]]
                ).status == 200)
            #expect(
                try await w.call(
                    .put, "/v1/domains/\(host)/grants/news", token: w.adminToken,
                    json: ["pathPrefixes": ["/news/"]]
                ).status == 200)

            // Rules, inside the grants.
            let put = try await w.call(
                .put, "/v1/domains/\(host)/apps/ABCDE12345.com.example.shop/rules", token: shop.secret,
                json: ["rules": [["/": "/shop/private/*", "exclude": true], ["/": "/shop/*", "comment": "products"]]])
            #expect(put.status == 200)
            #expect((put.object["rules"] as? [[String: Any]])?.count == 2)
            #expect(
                try await w.call(
                    .post, "/v1/domains/\(host)/apps/FGHIJ67890.com.example.news/rules", token: news.secret,
                    json: ["/": "/news/*"]
                ).status == 201)

            // The document the state renders to.
            // The whole draft (both teams' unpublished rules) is an admin's view: see DraftViewTests for a team's.
            let aasa = try await w.call(.get, "/v1/domains/\(host)/aasa", token: w.adminToken)
            #expect(aasa.status == 200)
            let details = (aasa.object["applinks"] as? [String: Any])?["details"] as? [[String: Any]] ?? []
            #expect(
                details.map { ($0["appIDs"] as? [String])?.first } == [
                    "ABCDE12345.com.example.shop", "FGHIJ67890.com.example.news",
                ])
            #expect(((details.first?["components"]) as? [[String: Any]])?.first?["exclude"] as? Bool == true)
            #expect(
                (aasa.object["webcredentials"] as? [String: Any])?["apps"] as? [String] == [
                    "ABCDE12345.com.example.shop"
                ])
            #expect(aasa.etag?.hasPrefix("\"sha256-") == true)

            // The second team is refused outside its grant (422 naming the rule, as a manifest is), and
            // cannot even see the first team's app.
            let outside = try await w.call(
                .put, "/v1/domains/\(host)/apps/FGHIJ67890.com.example.news/rules", token: news.secret,
                json: ["rules": [["/": "/shop/*"]]])
            #expect(outside.status == 422 && outside.problemRules == ["outside-grant"], "\(outside.text)")
            #expect(outside.headers[.contentType] == "application/problem+json")
            #expect(
                try await w.call(.get, "/v1/domains/\(host)/apps/ABCDE12345.com.example.shop/rules", token: news.secret)
                    .status == 404)
            let after = try await w.call(.get, "/v1/domains/\(host)/aasa", token: w.adminToken)
            #expect(after.body == aasa.body, "a refused change changes nothing")

            // The audit trail: who did what, in order, with request IDs; a team sees its own part only.
            let audit = try await w.call(.get, "/v1/audit?domain=\(host)", token: w.adminToken)
            let actions = (audit.object["items"] as? [[String: Any]] ?? []).compactMap { $0["action"] as? String }
            #expect(actions == ["rules.append", "rules.replace", "grant.create", "grant.create", "domain.create"])
            let replace = (audit.object["items"] as? [[String: Any]] ?? [])[1]
            #expect((replace["actor"] as? [String: Any])?["team"] as? String == "shop")
            #expect((replace["requestId"] as? String)?.isEmpty == false)
            #expect(((replace["after"] as? [String: Any])?["rules"] as? [Any])?.count == 2)
            let newsAudit = try await w.call(.get, "/v1/audit", token: news.secret)
            let teams = Set((newsAudit.object["items"] as? [[String: Any]] ?? []).compactMap { $0["team"] as? String })
            #expect(teams == ["news"])
            #expect(try await w.call(.get, "/v1/audit?team=shop", token: news.secret).status == 403)
        }
    }
}
