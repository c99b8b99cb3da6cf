import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import HTTPTypes
import Logging
import Testing

/// Every endpoint × every kind of caller, each cell on a fresh database, so a successful write
/// in one cell cannot change what the next one sees.
@Suite struct AuthorizationMatrixTests {
    enum Caller: String, CaseIterable, Sendable {
        case admin, ownWrite, ownRead, otherTeam, noToken, expired, revoked
    }

    struct Cell: Sendable, CustomTestStringConvertible {
        var method: HTTPRequest.Method
        var path: String
        var body: [String: any Sendable]?
        var raw: String?
        /// Expected status for admin, own-team write, own-team read, other team; the three kinds of
        /// invalid caller always get 401.
        var expected: [Int]
        var testDescription: String { "\(method) \(path)" }
    }

    static let app = "ABCDE12345.com.own.app"
    static let rules = "/v1/domains/example.com/apps/\(app)/rules"

    static let cells: [Cell] = [
        Cell(method: .get, path: "/v1/teams", expected: [200, 200, 200, 200]),
        Cell(method: .post, path: "/v1/teams", body: ["name": "new"], expected: [201, 403, 403, 403]),
        Cell(method: .get, path: "/v1/teams/own", expected: [200, 200, 200, 404]),
        Cell(method: .patch, path: "/v1/teams/own", body: ["displayName": "Own"], expected: [200, 403, 403, 404]),
        Cell(method: .delete, path: "/v1/teams/own", expected: [409, 403, 403, 404]),
        Cell(method: .get, path: "/v1/teams/own/tokens", expected: [200, 200, 200, 404]),
        Cell(
            method: .post, path: "/v1/teams/own/tokens", body: ["name": "ci", "scopes": ["read"]],
            expected: [201, 201, 403, 404]),
        Cell(method: .delete, path: "/v1/teams/own/tokens/{readTokenID}", expected: [204, 204, 403, 404]),
        Cell(method: .get, path: "/v1/teams/own/apps", expected: [200, 200, 200, 404]),
        Cell(method: .get, path: "/v1/teams/own/grants", expected: [200, 200, 200, 404]),
        Cell(
            method: .post, path: "/v1/teams/own/apps", body: ["appID": "ABCDE12345.com.own.second"],
            expected: [201, 201, 403, 404]),
        Cell(method: .get, path: "/v1/apps/\(app)", expected: [200, 200, 200, 404]),
        Cell(
            method: .patch, path: "/v1/apps/\(app)", body: ["services": ["applinks", "webcredentials"]],
            expected: [200, 200, 403, 404]),
        Cell(method: .delete, path: "/v1/apps/\(app)", expected: [204, 204, 403, 404]),
        Cell(method: .get, path: "/v1/domains", expected: [200, 200, 200, 200]),
        Cell(method: .post, path: "/v1/domains", body: ["host": "new.example"], expected: [201, 403, 403, 403]),
        Cell(method: .get, path: "/v1/domains/example.com", expected: [200, 200, 200, 200]),
        Cell(
            method: .patch, path: "/v1/domains/example.com", body: ["aliases": ["www.example.com"]],
            expected: [200, 403, 403, 403]),
        Cell(method: .delete, path: "/v1/domains/example.com", expected: [204, 403, 403, 403]),
        Cell(method: .get, path: "/v1/domains/example.com/grants", expected: [200, 200, 200, 200]),
        Cell(method: .get, path: "/v1/domains/example.com/grants/own", expected: [200, 200, 200, 200]),
        Cell(
            method: .put, path: "/v1/domains/example.com/grants/own", body: ["pathPrefixes": ["/"]],
            expected: [200, 403, 403, 403]),
        Cell(method: .delete, path: "/v1/domains/example.com/grants/other", expected: [204, 403, 403, 403]),
        // The domain-wide services are an admin's grant too.
        Cell(
            method: .put, path: "/v1/domains/example.com/grants/own",
            body: ["pathPrefixes": ["/"], "services": ["webcredentials"]],
            expected: [200, 403, 403, 403]),
        Cell(method: .get, path: rules, expected: [200, 200, 200, 404]),
        Cell(method: .put, path: rules, body: ["rules": [["/": "/a/*"]]], expected: [200, 200, 403, 404]),
        Cell(method: .post, path: rules, body: ["/": "/b/*"], expected: [201, 201, 403, 404]),
        Cell(method: .delete, path: rules + "/{ruleID}", expected: [200, 200, 403, 404]),
        Cell(method: .get, path: "/v1/domains/example.com/order", expected: [200, 200, 200, 200]),
        Cell(
            method: .put, path: "/v1/domains/example.com/order", body: ["apps": [app]], expected: [200, 403, 403, 403]),
        Cell(method: .get, path: "/v1/domains/example.com/aasa", expected: [200, 200, 200, 200]),
        Cell(method: .get, path: "/v1/domains/example.com/report", expected: [200, 200, 200, 200]),
        Cell(method: .get, path: "/v1/audit", expected: [200, 200, 200, 200]),
        Cell(method: .get, path: "/v1/whoami", expected: [200, 200, 200, 200]),
        // Drafts: everyone with a token reads them (a team sees others' published rules only: DraftViewTests).
        Cell(method: .get, path: "/v1/domains/example.com/diff?from=1&to=draft", expected: [200, 200, 200, 200]),
        Cell(
            method: .post, path: "/v1/match", body: ["url": "https://example.com/x/1", "source": "draft"],
            expected: [200, 200, 200, 200]),
        // Publishing and rollback: admins and write tokens of teams holding a grant (rollback within
        // today's grants, and a team's only over its own part: RollbackBoundsTests).
        Cell(
            method: .post, path: "/v1/domains/example.com/publish", body: ["reason": "again"],
            expected: [200, 200, 403, 200]),
        Cell(
            method: .post, path: "/v1/domains/example.com/revisions/1/rollback", body: ["reason": "undo"],
            expected: [200, 200, 403, 200]),
        // assetlinks.json: everyone reads the draft and the stream; it rolls back like the AASA
        // (the domain has no Android revision here, so whoever may roll back gets 404).
        Cell(method: .get, path: "/v1/domains/example.com/assetlinks", expected: [200, 200, 200, 200]),
        Cell(method: .get, path: "/v1/domains/example.com/assetlinks/revisions", expected: [200, 200, 200, 200]),
        Cell(
            method: .post, path: "/v1/domains/example.com/assetlinks/revisions/1/rollback", body: ["reason": "undo"],
            expected: [404, 404, 403, 404]),
        // A plan rolls back: a team's read token may see what its manifest would do (issue 39).
        Cell(method: .post, path: "/v1/teams/own/manifest?dryRun=true", raw: manifest, expected: [200, 200, 200, 404]),
        Cell(method: .post, path: "/v1/teams/own/manifest", raw: manifest, expected: [200, 200, 403, 404]),
        // Issue 39: the trusted issuers are the admins'; a team reads its own trust rules.
        Cell(method: .get, path: "/v1/oidc/issuers", expected: [200, 403, 403, 403]),
        Cell(method: .get, path: "/v1/teams/own/trust", expected: [200, 200, 200, 404]),
        Cell(method: .put, path: "/v1/teams/own/trust", raw: #"{"rules":[]}"#, expected: [200, 403, 403, 404]),
    ]

    static let manifest =
        #"""
        {"apps":[{"appID":"\#(app)"}],"domains":[{"host":"example.com","apps":[{"appID":"\#(app)",\#
        "rules":[{"/":"/m/*"}]}]}]}
        """#

    struct Fixture: Sendable {
        var tokens: [Caller: String]
        var readTokenID: String
        var ruleID: String
    }

    static func setUp(_ w: TestWorld) async throws -> Fixture {
        try await w.createTeam("own")
        try await w.createTeam("other")
        let write = try await w.teamToken("own", scopes: ["write"])
        let read = try await w.teamToken("own", scopes: ["read"])
        let other = try await w.teamToken("other", scopes: ["write"])
        let revoked = try await w.teamToken("own", scopes: ["write"])
        try #require(try await w.call(.delete, "/v1/teams/own/tokens/\(revoked.id)", token: w.adminToken).status == 204)
        let expired = try await w.withDatabase { database in
            let team = try await database.read(logger: .init(label: "t")) { try await $0.team(named: "own") }
            return try await TestWorld.makeToken(
                database, teamID: team?.id, scopes: [.write], name: "old",
                expiresAt: Date().addingTimeInterval(-60))
        }
        try #require(
            try await w.call(.post, "/v1/teams/own/apps", token: w.adminToken, json: ["appID": app]).status == 201)
        try #require(
            try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "example.com"]).status == 201)
        try #require(
            try await w.call(
                .put, "/v1/domains/example.com/grants/own", token: w.adminToken, json: ["pathPrefixes": ["/"]]
            ).status == 200)
        try #require(
            try await w.call(
                .put, "/v1/domains/example.com/grants/other", token: w.adminToken, json: ["pathPrefixes": ["/other"]]
            ).status == 200)
        let rules = try await w.call(.put, Self.rules, token: w.adminToken, json: ["rules": [["/": "/x/*"]]])
        let ruleID = try #require((rules.object["rules"] as? [[String: Any]])?.first?["id"] as? String)
        try #require(
            try await w.call(.post, "/v1/domains/example.com/publish", token: w.adminToken, json: ["reason": "r1"])
                .status == 201)
        return Fixture(
            tokens: [
                .admin: w.adminToken, .ownWrite: write.secret, .ownRead: read.secret,
                .otherTeam: other.secret, .expired: expired, .revoked: revoked.secret,
            ],
            readTokenID: read.id, ruleID: ruleID)
    }

    @Test(arguments: cells)
    func everyCallerOnEveryEndpoint(_ cell: Cell) async throws {
        for (i, caller) in Caller.allCases.enumerated() {
            try await TestWorld.run { w in
                let fixture = try await Self.setUp(w)
                let path = cell.path.replacingOccurrences(of: "{readTokenID}", with: fixture.readTokenID)
                    .replacingOccurrences(of: "{ruleID}", with: fixture.ruleID)
                let reply = try await w.call(
                    cell.method, path, token: fixture.tokens[caller], json: cell.body, raw: cell.raw)
                let expected = i < 4 ? cell.expected[i] : 401
                #expect(reply.status == expected, "\(caller) \(cell.method) \(path): \(reply.text)")
                if reply.status >= 400 {
                    #expect(reply.headers[.contentType] == "application/problem+json")
                }
            }
        }
    }

    /// An undeclared method on a declared path is 405 with `Allow`; an unknown path stays 404.
    @Test func undeclaredMethodsGet405() async throws {
        try await TestWorld.run { w in
            let put = try await w.call(.put, "/v1/teams", token: w.adminToken, json: ["name": "x"])
            #expect(put.status == 405)
            #expect(put.headers[.allow] == "GET, POST")
            #expect(put.headers[.contentType] == "application/problem+json")
            let patch = try await w.call(.patch, "/v1/domains/example.com/revisions/3/file", token: w.adminToken)
            #expect(patch.status == 405)
            #expect(patch.headers[.allow] == "GET")
            #expect(try await w.call(.get, "/v1/nothing/here", token: w.adminToken).status == 404)
            #expect(
                try await w.call(.get, "/v1/teams/own", token: w.adminToken).status == 404,
                "a missing resource is still 404")
        }
    }

    @Test func healthAndMetricsNeedNoToken() async throws {
        try await TestWorld.run { w in
            #expect(try await w.call(.get, "/health/live").status == 200)
            // Readiness gives its database check 2 s, as in production; a machine busy with other work
            // can take longer for a first connection (CI once did), and a 503 then is readiness doing
            // its job. What is checked is the outcome: ready without a token, once the database answers.
            var ready: TestWorld.Reply?
            let becameReady = try await eventually(timeout: .seconds(60)) {
                ready = try await w.call(.get, "/health/ready")
                return ready?.status == 200
            }
            #expect(becameReady, "\(ready?.text ?? "")")
            #expect(ready?.object["schema"] as? String == "current")
            _ = try await w.call(.get, "/v1/teams", token: w.adminToken)
            let metrics = try await w.call(.get, "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.text.contains("hb_requests"))
        }
    }
}
