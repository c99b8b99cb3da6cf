import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import HTTPTypes
import Testing

/// Issue 24, finding 3: what a newcomer trips on, through the API against PostgreSQL and through
/// the built aasactl.
@Suite struct NewcomerTests {
    static let app = "ABCDE12345.com.example.shop"

    /// An app asks for webcredentials and appclips; the team's grant gives only paths. Every
    /// answer that shows the domain or the app says so (G001, naming the domain and the grant);
    /// once the grant gives the services, they arrive in the file and the warning goes.
    @Test func servicesNoGrantGivesAreWarnedWherever() async throws {
        try await TestWorld.run { w in
            try await w.createTeam("shop")
            let shop = try await w.teamToken("shop", scopes: ["write"]).secret
            #expect(
                try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "example.com"]).status
                    == 201)
            #expect(
                try await w.call(
                    .put, "/v1/domains/example.com/grants/shop", token: w.adminToken, json: ["pathPrefixes": ["/shop"]]
                ).status == 200)
            let created = try await w.call(
                .post, "/v1/teams/shop/apps", token: shop,
                json: ["appID": Self.app, "services": ["applinks", "webcredentials", "appclips"]])
            #expect(created.status == 201, "\(created.text)")
            func g001(_ reply: TestWorld.Reply) -> [String] {
                (reply.object["warnings"] as? [[String: Any]] ?? []).filter { $0["code"] as? String == "G001" }
                    .compactMap { $0["message"] as? String }
            }
            #expect(g001(created).count == 2, "\(created.text)")
            let app = try await w.call(.get, "/v1/apps/\(Self.app)", token: shop)
            #expect(g001(app).count == 2, "\(app.text)")
            #expect(g001(app).allSatisfy { $0.contains("example.com") && $0.contains("team shop's grant") })
            let report = try await w.call(.get, "/v1/domains/example.com/report", token: w.adminToken)
            #expect(g001(report).count == 2, "\(report.text)")
            let manifest: [String: Any] = [
                "apps": [["appID": Self.app, "services": ["applinks", "webcredentials", "appclips"]]],
                "domains": [["host": "example.com", "apps": [["appID": Self.app, "rules": [["/": "/shop/*"]]]]]],
            ]
            let plan = try await w.call(.post, "/v1/teams/shop/manifest?dryRun=true", token: shop, json: manifest)
            #expect(plan.status == 200, "\(plan.text)")
            let planWarnings = (plan.object["domains"] as? [[String: Any]])?.first?["warnings"] as? [[String: Any]]
            #expect(planWarnings?.contains { $0["code"] as? String == "G001" } == true, "\(plan.text)")
            // The grant gives them: the warning goes and the file lists the app.
            #expect(
                try await w.call(
                    .put, "/v1/domains/example.com/grants/shop", token: w.adminToken,
                    json: ["pathPrefixes": ["/shop"], "services": ["webcredentials", "appclips"]]
                ).status == 200)
            #expect(g001(try await w.call(.get, "/v1/apps/\(Self.app)", token: shop)).isEmpty)
            let document = try await w.call(.get, "/v1/domains/example.com/aasa", token: w.adminToken).object
            #expect((document["webcredentials"] as? [String: Any])?["apps"] as? [String] == [Self.app])
            #expect((document["appclips"] as? [String: Any])?["apps"] as? [String] == [Self.app])
        }
    }

    /// Answers write `/` as it is: people read and grep them.
    @Test func answersDoNotEscapeSlashes() async throws {
        try await TestWorld.run { w in
            #expect(
                try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "example.com"]).status
                    == 201)
            try await w.createTeam("shop")
            let grant = try await w.call(
                .put, "/v1/domains/example.com/grants/shop", token: w.adminToken, json: ["pathPrefixes": ["/shop"]])
            #expect(grant.text.contains(#""/shop""#), "\(grant.text)")
            #expect(!grant.text.contains(#"\/"#), "\(grant.text)")
        }
    }

    /// Lists come in pages: a bounded limit and a cursor; a bad limit is refused naming it.
    @Test func domainAndTeamListsArePaged() async throws {
        try await TestWorld.run { w in
            for i in 0..<5 {
                #expect(
                    try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "d\(i).example"]).status
                        == 201)
                try await w.createTeam("team\(i)")
            }
            var hosts: [String] = []
            var after: String?
            var pages = 0
            repeat {
                let query = "limit=2" + (after.map { "&after=\($0)" } ?? "")
                let page = try await w.call(.get, "/v1/domains?\(query)", token: w.adminToken)
                #expect(page.status == 200, "\(page.text)")
                let items = (page.object["items"] as? [[String: Any]] ?? []).compactMap { $0["host"] as? String }
                #expect(items.count <= 2)
                hosts += items
                after = page.object["nextAfter"] as? String
                pages += 1
            } while after != nil && pages < 10
            #expect(hosts == (0..<5).map { "d\($0).example" })
            #expect(pages == 3)
            let teams = try await w.call(.get, "/v1/teams?limit=3", token: w.adminToken)
            #expect((teams.object["items"] as? [Any])?.count == 3)
            #expect(teams.object["nextAfter"] as? String == "team2")
            let rest = try await w.call(.get, "/v1/teams?limit=3&after=team2", token: w.adminToken)
            #expect(
                (rest.object["items"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["team3", "team4"])
            #expect(rest.object["nextAfter"] == nil)
            for bad in ["limit=0", "limit=501"] {
                let reply = try await w.call(.get, "/v1/domains?\(bad)", token: w.adminToken)
                #expect(reply.status == 400, "\(bad): \(reply.text)")
                #expect(reply.text.contains("limit"))
            }
        }
    }

    /// aasactl follows the pages: 120 domains (over the server's default page of 100) all listed.
    @Test func aasactlFollowsPages() async throws {
        try await CLIEndToEndTests.withServer { server, cli, admin in
            for i in 0..<120 {
                let reply = try await Curl.call(
                    "POST", server.baseURL + "/v1/domains", token: admin, json: #"{"host":"p\#(i).example"}"#)
                try #require(reply.status == 201)
            }
            let listed = try await cli("domains", "list", "--output", "json")
            #expect(listed.status == 0, "\(listed)")
            let items = try JSONSerialization.jsonObject(with: Data(listed.out.utf8)) as? [String: Any]
            #expect((items?["items"] as? [Any])?.count == 120)
            let table = try await cli("domains", "list")
            #expect(table.out.contains("p99.example") && table.out.contains("p0.example"))
        }
    }
}
