import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import HTTPTypes
import Testing

/// Issue 15, finding 2: one team's rules on one domain are capped (default 1,000), so that no team
/// can make every write to a shared domain slow; and a write of that many rules is validated in
/// full, analysis included, without running out of the analysis budget.
@Suite struct RuleCapTests {
    static let app = "ABCDE12345.com.big.app"
    static let second = "ABCDE12345.com.big.second"

    static func rules(_ n: Int, under prefix: String = "/catalog") -> [[String: Any]] {
        (0..<n).map { ["/": "\(prefix)/\($0 % 37)/item\($0)/*"] }
    }

    @Test func aTeamCannotGoAboveTheCapOnOneDomain() async throws {
        try await TestWorld.run { w in
            try await w.createTeam("big")
            let token = try await w.teamToken("big", scopes: ["write"]).secret
            for app in [Self.app, Self.second] {
                try #require(
                    try await w.call(.post, "/v1/teams/big/apps", token: token, json: ["appID": app]).status == 201)
            }
            try #require(
                try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "example.com"]).status == 201
            )
            try #require(
                try await w.call(
                    .put, "/v1/domains/example.com/grants/big", token: w.adminToken, json: ["pathPrefixes": ["/"]]
                ).status == 200)
            let path = "/v1/domains/example.com/apps/\(Self.app)/rules"

            let tooMany = try await w.call(.put, path, token: token, json: ["rules": Self.rules(1_001)])
            #expect(tooMany.status == 422)
            #expect(tooMany.problemRules == ["max-rules"])
            #expect(tooMany.problemFields == ["/rules"])
            #expect(tooMany.text.contains("1001") && tooMany.text.contains("1000"))
            #expect(try await w.call(.get, path, token: token).object["version"] as? Int == 0, "nothing was stored")

            let atTheCap = try await w.call(.put, path, token: token, json: ["rules": Self.rules(1_000)])
            #expect(atTheCap.status == 200)
            let report = try await w.call(.get, "/v1/domains/example.com/report", token: token)
            #expect(report.object["valid"] as? Bool == true)
            let warnings = (report.object["warnings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            #expect(!warnings.contains("W043"), "the analysis of 1,000 distinct rules completes: \(warnings)")

            // The cap counts all of the team's apps on the domain.
            let more = try await w.call(
                .post, "/v1/domains/example.com/apps/\(Self.second)/rules", token: token, json: ["/": "/other/*"])
            #expect(more.status == 422)
            #expect(more.problemRules == ["max-rules"])
            // Shrinking is always allowed.
            #expect(try await w.call(.put, path, token: token, json: ["rules": Self.rules(10)]).status == 200)
        }
    }
}
