import AASATestSupport
import Foundation
import HTTPTypes
import Testing

/// Who may put what in a relying party's passkey origins: a team's Android key reaches a relying
/// party's export only through a grant with `webcredentials` on that domain (before, any team could
/// add its own app to another team's relying party), and the related origins a domain lists are
/// bounded per owner and per domain (before, 400 adds were accepted, each slower than the last).
@Suite struct PasskeyOwnershipTests {
    static let blogAndroid = "com.blog.app"

    @Test func aTeamClaimsOnlyARelyingPartyItsGrantOpensToWebcredentials() async throws {
        try await PasskeysTests.withShop { w, _ in
            let blog = try await w.teamToken("blog", scopes: ["write"]).secret
            let app = try await w.call(
                .post, "/v1/teams/blog/apps", token: w.adminToken,
                json: [
                    "appID": Self.blogAndroid, "platform": "android", "services": ["webcredentials"],
                    "fingerprints": [AndroidKeyTests.debug],
                ])
            try #require(app.status == 201, "\(app.text)")
            let exportBefore = try await w.call(.get, "/v1/relying-parties/shop.test/origins", token: w.adminToken)
            // blog's grant on shop.test has no webcredentials; other.example is no domain of the registry.
            for rpIDs in [["shop.test"], ["other.example"], ["shop.test", "other.example"]] {
                let refused = try await w.call(
                    .put, "/v1/apps/\(Self.blogAndroid)/passkeys", token: blog, json: ["relyingParties": rpIDs])
                #expect(refused.status == 403, "\(rpIDs): \(refused.text)")
                #expect(rpIDs.contains { refused.text.contains($0) }, "names the relying party: \(refused.text)")
            }
            let listed = try await w.call(.get, "/v1/apps/\(Self.blogAndroid)/passkeys", token: blog)
            #expect((listed.object["relyingParties"] as? [String]) == [], "nothing was written: \(listed.text)")
            let exportAfter = try await w.call(.get, "/v1/relying-parties/shop.test/origins", token: w.adminToken)
            #expect(exportAfter.text == exportBefore.text, "the export is unchanged: \(exportAfter.text)")
            let audit = try await w.call(.get, "/v1/audit?action=passkey-clients.replace", token: w.adminToken)
            #expect((audit.object["items"] as? [Any])?.isEmpty == true, "\(audit.text)")

            // With webcredentials in its grant, the same team may; an admin may name any relying party.
            let grant = try await w.call(
                .put, "/v1/domains/shop.test/grants/blog", token: w.adminToken,
                json: ["pathPrefixes": ["/blog"], "services": ["webcredentials"]])
            try #require(grant.status == 200, "\(grant.text)")
            let claimed = try await w.call(
                .put, "/v1/apps/\(Self.blogAndroid)/passkeys", token: blog, json: ["relyingParties": ["shop.test"]])
            #expect(claimed.status == 200, "\(claimed.text)")
            let byAdmin = try await w.call(
                .put, "/v1/apps/\(Self.blogAndroid)/passkeys", token: w.adminToken,
                json: ["relyingParties": ["shop.test", "other.example"]])
            #expect(byAdmin.status == 200, "\(byAdmin.text)")
            // Once the grant loses webcredentials, the team still takes its app off what it lists.
            _ = try await w.call(
                .put, "/v1/domains/shop.test/grants/blog", token: w.adminToken, json: ["pathPrefixes": ["/blog"]])
            let kept = try await w.call(
                .put, "/v1/apps/\(Self.blogAndroid)/passkeys", token: blog, json: ["relyingParties": ["shop.test"]])
            #expect(kept.status == 200, "removing other.example and keeping shop.test: \(kept.text)")
            let off = try await w.call(
                .put, "/v1/apps/\(Self.blogAndroid)/passkeys", token: blog, json: ["relyingParties": []])
            #expect(off.status == 200, "\(off.text)")
        }
    }

    @Test func relatedOriginsAreBoundedPerOwnerAndPerDomain() async throws {
        try await PasskeysTests.withShop { w, _ in
            let shop = try await w.teamToken("shop", scopes: ["write"]).secret
            let path = "/v1/domains/shop.test/related-origins"
            // One label: the five-label rule is not what stops these.
            func add(_ n: Int, _ token: String) async throws -> TestWorld.Reply {
                try await w.call(.post, path, token: token, json: ["origin": "https://o\(n).shop.example"])
            }
            for n in 0..<50 {
                let reply = try await add(n, shop)
                try #require(reply.status == 201, "origin \(n): \(reply.text)")
            }
            let overTeam = try await add(50, shop)
            #expect(overTeam.status == 422 && overTeam.problemRules == ["maxItems"], "\(overTeam.text)")
            #expect(overTeam.problemFields == ["/origin"], "\(overTeam.text)")
            // The admins are an owner of their own, and so is each team: four owners fill the domain.
            for team in ["blog", "news", "mail"] {
                if team != "blog" { try #require(try await w.createTeam(team).status == 201) }
                let grant = try await w.call(
                    .put, "/v1/domains/shop.test/grants/\(team)", token: w.adminToken,
                    json: ["pathPrefixes": ["/\(team)"], "services": ["webcredentials"]])
                try #require(grant.status == 200, "\(grant.text)")
            }
            let blog = try await w.teamToken("blog", scopes: ["write"]).secret
            let news = try await w.teamToken("news", scopes: ["write"]).secret
            for (owner, token) in [(1, w.adminToken), (2, blog), (3, news)] {
                for n in (owner * 100)..<(owner * 100 + 50) {
                    let reply = try await add(n, token)
                    try #require(reply.status == 201, "origin \(n): \(reply.text)")
                }
            }
            #expect(try await add(150, w.adminToken).problemRules == ["maxItems"], "the admins' 51st")
            let mail = try await w.teamToken("mail", scopes: ["write"]).secret
            let overDomain = try await add(400, mail)
            #expect(overDomain.status == 422 && overDomain.problemRules == ["maxItems"], "\(overDomain.text)")
            #expect(overDomain.text.contains("200 related origins"), "names the domain's bound: \(overDomain.text)")
            let list = try await w.call(.get, path, token: w.adminToken)
            #expect((list.object["items"] as? [Any])?.count == 200, "refusals wrote nothing")
        }
    }
}
