import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import Testing

/// 412, 422, 409 and idempotency against PostgreSQL: a refused change changes nothing.
@Suite struct WriteRulesTests {
    static let app = "ABCDE12345.com.own.app"
    static let rules = "/v1/domains/example.com/apps/\(app)/rules"

    /// A team with an app, a domain and a grant of `/`; returns the team's write token.
    static func setUp(_ w: TestWorld) async throws -> String {
        try await w.createTeam("own")
        let token = try await w.teamToken("own", scopes: ["write"]).secret
        try #require(try await w.call(.post, "/v1/teams/own/apps", token: token, json: ["appID": app]).status == 201)
        try #require(
            try await w.call(
                .post, "/v1/domains", token: w.adminToken,
                json: ["host": "example.com", "substitutionVariables": ["product": ["shoes", "hats"]]]
            ).status == 201)
        try #require(
            try await w.call(
                .put, "/v1/domains/example.com/grants/own", token: w.adminToken, json: ["pathPrefixes": ["/"]]
            ).status == 200)
        return token
    }

    static func auditCount(_ w: TestWorld) async throws -> Int {
        try await w.withDatabase { db in
            try await db.read(logger: Logger(label: "t")) {
                try await $0.first("SELECT count(*)::bigint FROM audit_events", as: Int.self) ?? -1
            }
        }
    }

    @Test func staleIfMatchIsRefusedAndChangesNothing() async throws {
        try await TestWorld.run { w in
            let token = try await Self.setUp(w)
            let first = try await w.call(
                .put, Self.rules, token: token, json: ["rules": [["/": "/a/*"]]], headers: ["If-Match": "\"0\""])
            #expect(first.status == 200)
            #expect(first.etag == "\"1\"")
            // Two writers read version 1; the first wins, the second gets 412 and nothing changes.
            let winner = try await w.call(
                .put, Self.rules, token: token, json: ["rules": [["/": "/b/*"]]], headers: ["If-Match": "\"1\""])
            #expect(winner.status == 200)
            let audits = try await Self.auditCount(w)
            let loser = try await w.call(
                .put, Self.rules, token: token, json: ["rules": [["/": "/c/*"]]], headers: ["If-Match": "\"1\""])
            #expect(loser.status == 412)
            #expect(loser.problemFields == ["If-Match"])
            let now = try await w.call(.get, Self.rules, token: token)
            #expect((now.object["rules"] as? [[String: Any]])?.first?["/"] as? String == "/b/*")
            #expect(now.etag == "\"2\"")
            #expect(try await Self.auditCount(w) == audits)
            // Emptying keeps the version counting: an old ETag never matches again.
            #expect(
                try await w.call(.put, Self.rules, token: token, json: ["rules": []], headers: ["If-Match": "\"2\""])
                    .etag == "\"3\"")
            #expect(
                try await w.call(
                    .put, Self.rules, token: token, json: ["rules": [["/": "/d"]]], headers: ["If-Match": "\"1\""]
                ).status == 412)
        }
    }

    @Test func invalidDocumentIsRefusedWith422NamingTheRule() async throws {
        try await TestWorld.run { w in
            let token = try await Self.setUp(w)
            #expect(
                try await w.call(.put, Self.rules, token: token, json: ["rules": [["/": "/$(product)/*"]]]).status
                    == 200)
            let before = try await w.call(.get, "/v1/domains/example.com/aasa", token: token)
            let audits = try await Self.auditCount(w)

            let bad = try await w.call(
                .put, Self.rules, token: token, json: ["rules": [["/": "/ok/*"], ["/": "/$(nope)/*"]]])
            #expect(bad.status == 422)
            #expect(bad.headers[.contentType] == "application/problem+json")
            #expect(bad.problemRules == ["E020"])
            #expect(bad.problemFields == ["/rules/1/~1"])

            let unknown = try await w.call(.post, Self.rules, token: token, json: ["/": "/x", "excluded": true])
            #expect(unknown.status == 422)
            #expect(unknown.problemFields == ["/excluded"])

            let badType = try await w.call(.post, Self.rules, token: token, json: ["/": 5])
            #expect(badType.status == 400)
            #expect(try await w.call(.post, Self.rules, token: token, raw: "{\"/\": ").status == 400)

            // Removing the variable the rules use would break the document: refused too.
            let domain = try await w.call(
                .patch, "/v1/domains/example.com", token: w.adminToken, json: ["substitutionVariables": [:]])
            #expect(domain.status == 422)
            let predefined = try await w.call(
                .post, "/v1/domains", token: w.adminToken,
                json: ["host": "v.example", "substitutionVariables": ["lang": ["en"]]])
            #expect(predefined.status == 422)
            #expect(predefined.problemFields == ["/substitutionVariables/lang"])

            #expect(try await w.call(.get, "/v1/domains/example.com/aasa", token: token).body == before.body)
            #expect(try await Self.auditCount(w) == audits)

            // Warnings come back with success: the second rule can never match.
            let shadowed = try await w.call(
                .put, Self.rules, token: token, json: ["rules": [["/": "/*"], ["/": "/shop/*"]]])
            #expect(shadowed.status == 200)
            let codes = (shadowed.object["warnings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            #expect(codes.contains("W040") || codes.contains("W041") || !codes.isEmpty)
            let report = try await w.call(.get, "/v1/domains/example.com/report", token: token)
            #expect(report.object["valid"] as? Bool == true)
            #expect((report.object["shadowed"] as? [[String: Any]])?.count == 1)
        }
    }

    @Test func crossTeamOverlapIsReportedByTeamAndApp() async throws {
        try await TestWorld.run { w in
            let own = try await Self.setUp(w)
            try await w.createTeam("other")
            let other = try await w.teamToken("other", scopes: ["write"]).secret
            #expect(
                try await w.call(
                    .post, "/v1/teams/other/apps", token: other, json: ["appID": "FGHIJ67890.com.other.app"]
                ).status == 201)
            #expect(
                try await w.call(
                    .put, "/v1/domains/example.com/grants/other", token: w.adminToken, json: ["pathPrefixes": ["/shop"]]
                ).status == 200)
            #expect(try await w.call(.put, Self.rules, token: own, json: ["rules": [["/": "/shop/*"]]]).status == 200)
            let second = try await w.call(
                .put, "/v1/domains/example.com/apps/FGHIJ67890.com.other.app/rules", token: other,
                json: ["rules": [["/": "/shop/sale/*"]]])
            #expect(second.status == 200)
            let warnings = second.object["warnings"] as? [[String: Any]] ?? []
            #expect(
                warnings.contains {
                    $0["appID"] as? String == "FGHIJ67890.com.other.app" && $0["team"] as? String == "other"
                })
            // The whole draft, both teams' unpublished rules: an admin's view (a team sees others' published rules
            // only).
            let report = try await w.call(.get, "/v1/domains/example.com/report", token: w.adminToken)
            let overlap = try #require((report.object["overlaps"] as? [[String: Any]])?.first)
            #expect(overlap["crossTeam"] as? Bool == true)
            #expect((overlap["first"] as? [String: Any])?["team"] as? String == "own")
            #expect((overlap["second"] as? [String: Any])?["team"] as? String == "other")
            // Narrowing the grant below the team's rules is refused.
            #expect(
                try await w.call(
                    .put, "/v1/domains/example.com/grants/other", token: w.adminToken,
                    json: ["pathPrefixes": ["/news"]]
                ).status == 422)
            // A grant prefix is a path space: /shop does not cover /shopping. A rule outside the grant is
            // 422 naming the rule, as a manifest answers it (issue 28).
            let outside = try await w.call(
                .put, "/v1/domains/example.com/apps/FGHIJ67890.com.other.app/rules", token: other,
                json: ["rules": [["/": "/shopping/*"]]])
            #expect(outside.status == 422, "\(outside.text)")
            #expect(outside.problemFields == ["/rules/0/~1"] && outside.problemRules == ["outside-grant"])
        }
    }

    /// Issue 28: a rule on a domain where the team holds no grant is one wrong with one answer, 422
    /// `no-grant`, from the rules API (it was 403) as from a manifest; nothing is written by either.
    @Test func noGrantIsOneAnswerFromBothEntryPoints() async throws {
        try await TestWorld.run { w in
            _ = try await Self.setUp(w)
            try await w.createTeam("other")
            let other = try await w.teamToken("other", scopes: ["write"]).secret
            #expect(
                try await w.call(
                    .post, "/v1/teams/other/apps", token: other, json: ["appID": "FGHIJ67890.com.other.app"]
                ).status == 201)
            let api = try await w.call(
                .put, "/v1/domains/example.com/apps/FGHIJ67890.com.other.app/rules", token: other,
                json: ["rules": [["/": "/other/*"]]])
            #expect(api.status == 422, "\(api.text)")
            #expect(api.problemRules == ["no-grant"] && api.problemFields == ["host"], "\(api.text)")
            let manifest = try await w.call(
                .post, "/v1/teams/other/manifest", token: other,
                raw:
                    #"""
                    {"apps":[{"appID":"FGHIJ67890.com.other.app"}],"domains":[{"host":"example.com","apps":\#
                    [{"appID":"FGHIJ67890.com.other.app","rules":[{"/":"/other/*"}]}]}]}
                    """#)
            #expect(manifest.status == 422, "\(manifest.text)")
            #expect(manifest.problemRules == ["no-grant"] && manifest.problemFields == ["/domains/0/host"])
            let rules = try await w.call(
                .get, "/v1/domains/example.com/apps/FGHIJ67890.com.other.app/rules", token: other)
            #expect((rules.object["rules"] as? [Any])?.isEmpty ?? true, "nothing was written: \(rules.text)")
        }
    }

    @Test func conflictsAre409() async throws {
        try await TestWorld.run { w in
            _ = try await Self.setUp(w)
            let dup = try await w.createTeam("own")
            #expect(dup.status == 409)
            #expect(dup.problemFields == ["/name"])
            #expect(
                try await w.call(.post, "/v1/teams/own/apps", token: w.adminToken, json: ["appID": Self.app]).status
                    == 409)
            #expect(try await w.call(.delete, "/v1/teams/own", token: w.adminToken).status == 409)
            #expect(
                try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "EXAMPLE.com."]).status
                    == 409)
            #expect(
                try await w.call(
                    .post, "/v1/domains", token: w.adminToken, json: ["host": "b.example", "aliases": ["b.example"]]
                ).status == 422)
            #expect(try await w.call(.post, "/v1/teams", token: w.adminToken, json: ["name": "Bad Name"]).status == 422)
            #expect(
                try await w.call(.post, "/v1/teams/own/apps", token: w.adminToken, json: ["appID": "abc.com.x"]).status
                    == 422)
        }
    }

    @Test func idempotencyKeyReturnsTheFirstAnswer() async throws {
        try await TestWorld.run { w in
            let key = ["Idempotency-Key": "create-team-7"]
            let first = try await w.call(.post, "/v1/teams", token: w.adminToken, json: ["name": "retry"], headers: key)
            #expect(first.status == 201)
            let again = try await w.call(.post, "/v1/teams", token: w.adminToken, json: ["name": "retry"], headers: key)
            #expect(again.status == 201)
            #expect(again.body == first.body)
            #expect(again.headers[HTTPField.Name("Idempotency-Replayed")!] == "true")
            let other = try await w.call(
                .post, "/v1/teams", token: w.adminToken, json: ["name": "different"], headers: key)
            #expect(other.status == 422)
            let creates = try await w.withDatabase { db in
                try await db.read(logger: Logger(label: "t")) {
                    try await $0.first(
                        "SELECT count(*)::bigint FROM audit_events WHERE action = 'team.create'", as: Int.self)
                }
            }
            #expect(creates == 1)
            // A failed request releases its key: the retry runs again.
            let failed = try await w.call(
                .post, "/v1/teams", token: w.adminToken, json: ["name": "BAD"], headers: ["Idempotency-Key": "k2"])
            #expect(failed.status == 422)
            #expect(
                try await w.call(
                    .post, "/v1/teams", token: w.adminToken, json: ["name": "BAD"], headers: ["Idempotency-Key": "k2"]
                ).status == 422)
        }
    }

    @Test func auditTrailIsAppendOnlyInTheDatabase() async throws {
        try await TestWorld.run { w in
            try await w.createTeam("own")
            try await w.withDatabase { db in
                for statement in [
                    "UPDATE audit_events SET action = 'x'", "DELETE FROM audit_events", "TRUNCATE audit_events",
                ] {
                    await #expect(throws: PSQLError.self) {
                        try await db.read(logger: Logger(label: "t")) {
                            try await $0.run(PostgresQuery(unsafeSQL: statement))
                        }
                    }
                }
                let count = try await db.read(logger: Logger(label: "t")) {
                    try await $0.first("SELECT count(*)::bigint FROM audit_events", as: Int.self)
                }
                #expect(count == 1)
            }
        }
    }

    @Test func auditPagesWithACursor() async throws {
        try await TestWorld.run { w in
            for i in 0..<5 { try await w.createTeam("t\(i)") }
            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try await w.call(
                    .get, "/v1/audit?limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""), token: w.adminToken)
                #expect(page.status == 200)
                seen += (page.object["items"] as? [[String: Any]] ?? []).compactMap { $0["entityID"] as? String }
                cursor = page.object["nextCursor"] as? String
            } while cursor != nil
            #expect(seen == ["t4", "t3", "t2", "t1", "t0"])
            #expect(try await w.call(.get, "/v1/audit?cursor=nonsense", token: w.adminToken).status == 400)
        }
    }

    @Test func secretsAreStoredHashed() async throws {
        try await TestWorld.run { w in
            try await w.createTeam("own")
            let token = try await w.teamToken("own", scopes: ["read"])
            let stored = try await w.withDatabase { db in
                try await db.read(logger: Logger(label: "t")) {
                    try await $0.all(
                        "SELECT encode(secret_hash, 'hex'), coalesce(after::text, '') FROM tokens, audit_events",
                        as: (String, String).self)
                }
            }
            // The secret may itself contain "_".
            let secretPart = String(token.secret.dropFirst("aasa_".count + 32 + 1))
            #expect(!stored.isEmpty)
            #expect(stored.allSatisfy { !$0.0.contains(secretPart) && !$0.1.contains(secretPart) })
        }
    }
}
