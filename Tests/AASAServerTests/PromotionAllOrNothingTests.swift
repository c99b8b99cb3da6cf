import AASAModel
import AASAStore
import Foundation
import HTTPTypes
import Logging
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServices

/// Issue 40: a promotion is all or nothing. Three targets are planned; then the second one's
/// source publishes something else, and the stale plan is applied through the core's service
/// (no HTTP in between, so the race is exact): the apply is refused naming the second target, and
/// no target, the first included, has a new revision, a changed rule or a promotion audit event.
@Suite struct PromotionAllOrNothingTests {
    static let app = "ABCDE12345.com.example.app"
    static let targets = ["a.example", "b.example", "c.example"]

    static func setUp(_ w: TestWorld) async throws {
        let environments = try await w.call(
            .put, "/v1/environments", token: w.adminToken, json: ["environments": ["staging", "prod"]])
        try #require(environments.status == 200, "\(environments.text)")
        try await w.createTeam("shop")
        try #require(
            try await w.call(.post, "/v1/teams/shop/apps", token: w.adminToken, json: ["appID": app]).status == 201)
        for target in targets {
            for (host, environment) in [("staging.\(target)", "staging"), (target, "prod")] {
                let domain = try await w.call(
                    .post, "/v1/domains", token: w.adminToken, json: ["host": host, "environment": environment])
                try #require(domain.status == 201, "\(domain.text)")
                try #require(
                    try await w.call(
                        .put, "/v1/domains/\(host)/grants/shop", token: w.adminToken, json: ["pathPrefixes": ["/"]]
                    ).status == 200)
            }
            try await put(w, "staging.\(target)", ["/shop/*", "/deals/*"])
            try await publish(w, "staging.\(target)")
            try await put(w, target, ["/shop/*"])
            try await publish(w, target)
        }
    }

    static func put(_ w: TestWorld, _ host: String, _ paths: [String]) async throws {
        let rules = try await w.call(
            .put, "/v1/domains/\(host)/apps/\(app)/rules", token: w.adminToken,
            json: ["rules": paths.map { ["/": $0] }])
        try #require(rules.status == 200, "\(rules.text)")
    }

    static func publish(_ w: TestWorld, _ host: String) async throws {
        let published = try await w.call(
            .post, "/v1/domains/\(host)/publish", token: w.adminToken, json: ["reason": "r"])
        try #require(published.status == 201, "\(published.text)")
    }

    /// Each target's revision numbers and rules, and the promotion events in the audit.
    static func state(_ w: TestWorld) async throws -> [String] {
        var out: [String] = []
        for target in targets {
            let revisions = try await w.call(.get, "/v1/domains/\(target)/revisions", token: w.adminToken)
            let rules = try await w.call(.get, "/v1/domains/\(target)/apps/\(app)/rules", token: w.adminToken)
            out.append("\(target) \((revisions.object["items"] as? [Any])?.count ?? -1) \(rules.text)")
        }
        let audit = try await w.call(.get, "/v1/audit?action=domain.promote", token: w.adminToken)
        out.append("promotions: \((audit.object["items"] as? [Any])?.count ?? -1)")
        return out
    }

    @Test func aRefusalAtTheSecondOfThreeTargetsPromotesNone() async throws {
        try await TestWorld.run { w in
            try await Self.setUp(w)
            let before = try await Self.state(w)
            try await w.withDatabase { database in
                let logger = Logger(label: "promotion test")
                let admin = Principal(tokenID: UUID(), tokenName: "test", teamID: nil, teamName: nil, scopes: [.admin])
                let service = PromotionService(
                    work: RequestWork(database: database, logger: logger),
                    publisher: Publisher(database: database, served: nil, webRootBases: []), principal: admin,
                    actor: Actor(admin, requestID: nil), maxRulesPerTeam: 1000, logger: logger)
                let request = PromotionService.Request(
                    from: "staging", to: "prod", domains: [], takeDrafts: false, apply: true, reason: nil)
                let plan = try await service.plan(request)
                #expect(plan.domains.map(\.target) == Self.targets)
                #expect(plan.domains.allSatisfy { !$0.apps.isEmpty }, "each target gains /deals/*")

                // The second target's source moves on between the plan and the apply.
                try await Self.put(w, "staging.b.example", ["/shop/*", "/deals/*", "/outlet/*"])
                try await Self.publish(w, "staging.b.example")
                await #expect {
                    _ = try await service.apply(plan, from: "staging", to: "prod", reason: nil)
                } throws: { error in
                    let refusal = error as? ServiceError
                    return refusal?.slug == "conflict" && refusal?.errors.first?.rule == "source-moved"
                        && (refusal?.detail ?? "").contains("b.example")
                }
            }
            #expect(try await Self.state(w) == before, "no target was promoted, the first included")

            // Planned again, the same promotion goes through for all three at once.
            let applied = try await w.call(
                .post, "/v1/promotions", token: w.adminToken, json: ["from": "staging", "to": "prod", "apply": true])
            #expect(applied.status == 200, "\(applied.text)")
            let revisions = (applied.object["domains"] as? [[String: Any]] ?? []).compactMap { $0["revision"] as? Int }
            #expect(revisions == [2, 2, 2], "\(applied.text)")
        }
    }
}
