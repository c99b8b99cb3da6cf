import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import HTTPTypes
import Logging
import Synchronization
import Testing

/// Issue 15, finding 4: the domain-wide services need their own grant, and an Apple Team ID
/// prefix bound to a team is that team's alone.
@Suite struct ServiceGrantTests {
    @Test func aPathGrantAloneGivesNoDomainWideService() async throws {
        try await TestWorld.run { w in
            try await w.createTeam("blog")
            let blog = try await w.teamToken("blog", scopes: ["write"]).secret
            try #require(
                try await w.call(
                    .post, "/v1/teams/blog/apps", token: blog,
                    json: ["appID": "ABCDE12345.com.blog.app", "services": ["applinks", "webcredentials", "appclips"]]
                ).status == 201)
            try #require(
                try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "example.com"]).status == 201
            )
            let grant = try await w.call(
                .put, "/v1/domains/example.com/grants/blog", token: w.adminToken, json: ["pathPrefixes": ["/blog"]])
            #expect(grant.status == 200)
            #expect(grant.object["services"] as? [String] == [])
            let draft = try await w.call(.get, "/v1/domains/example.com/aasa", token: w.adminToken)
            #expect(
                draft.object["webcredentials"] == nil, "a /blog grant offers no saved passwords for the whole domain")
            #expect(draft.object["appclips"] == nil)

            // A team cannot grant itself the service.
            #expect(
                try await w.call(
                    .put, "/v1/domains/example.com/grants/blog", token: blog,
                    json: ["pathPrefixes": ["/blog"], "services": ["webcredentials"]]
                ).status == 403)
            let granted = try await w.call(
                .put, "/v1/domains/example.com/grants/blog", token: w.adminToken,
                json: ["pathPrefixes": ["/blog"], "services": ["webcredentials"]])
            #expect(granted.object["services"] as? [String] == ["webcredentials"])
            let after = try await w.call(.get, "/v1/domains/example.com/aasa", token: w.adminToken)
            #expect(
                (after.object["webcredentials"] as? [String: Any])?["apps"] as? [String] == ["ABCDE12345.com.blog.app"])
            #expect(after.object["appclips"] == nil, "only the services granted")
        }
    }

    /// Registering an app takes the Apple Team ID lock shared, binding a prefix takes it exclusive:
    /// while a registration is in flight (here, a transaction holding the shared lock), another
    /// registration goes through and a binding waits, then goes through once it commits.
    @Test func registrationsDoNotWaitForEachOtherButABindingWaitsForThem() async throws {
        try await TestWorld.run { w in
            try await w.createTeam("shop")
            let (registration, binding) = try await w.withDatabase { database in
                try await database.transaction(logger: Logger(label: "test")) { session in
                    try await session.lockSharedUntilCommit(.appleTeamIDClaims)
                    let created = Mutex<Int?>(nil)
                    let creating = Task {
                        let reply = try await w.call(
                            .post, "/v1/teams/shop/apps", token: w.adminToken,
                            json: ["appID": "ABCDE12345.com.shop.app"])
                        created.withLock { $0 = reply.status }
                    }
                    // The guard is for a hang, not a speed: under the whole suite a call can take 15 s.
                    let done = try await eventually(timeout: .seconds(60)) { created.withLock { $0 } != nil }
                    #expect(done && created.withLock { $0 } == 201, "a registration does not wait for one in flight")
                    let bound = Mutex<Int?>(nil)
                    let binding = Task {
                        let reply = try await w.call(
                            .patch, "/v1/teams/shop", token: w.adminToken, json: ["appleTeamIDs": ["ABCDE12345"]])
                        bound.withLock { $0 = reply.status }
                    }
                    let early = try await eventually(timeout: .milliseconds(700)) { bound.withLock { $0 } != nil }
                    #expect(!early, "a binding waits for the registrations in flight")
                    return (creating, binding)
                }
            }
            try await registration.value
            try await binding.value
            let team = try await w.call(.get, "/v1/teams/shop", token: w.adminToken)
            #expect(team.object["appleTeamIDs"] as? [String] == ["ABCDE12345"], "and goes through after them")
        }
    }

    @Test func anAppleTeamIDBelongsToOneTeam() async throws {
        try await TestWorld.run { w in
            try await w.createTeam("shop")
            try await w.createTeam("squatter")
            let squatter = try await w.teamToken("squatter", scopes: ["write"]).secret
            let claim = try await w.call(
                .patch, "/v1/teams/shop", token: w.adminToken, json: ["appleTeamIDs": ["ABCDE12345"]])
            #expect(claim.status == 200)
            #expect(claim.object["appleTeamIDs"] as? [String] == ["ABCDE12345"])

            let squat = try await w.call(
                .post, "/v1/teams/squatter/apps", token: squatter, json: ["appID": "ABCDE12345.com.shop.fake"])
            #expect(squat.status == 403)
            #expect(squat.text.contains("shop"))
            #expect(
                try await w.call(
                    .post, "/v1/teams/squatter/apps", token: squatter, json: ["appID": "ZZZZZ99999.com.squatter.app"]
                ).status == 201,
                "a prefix nobody claims stays open")
            #expect(
                try await w.call(
                    .post, "/v1/teams/shop/apps", token: w.adminToken, json: ["appID": "ABCDE12345.com.shop.app"]
                ).status == 201)
            let outside = try await w.call(
                .post, "/v1/teams/shop/apps", token: w.adminToken, json: ["appID": "QQQQQ11111.com.shop.other"])
            #expect(outside.status == 403, "a team with prefixes registers under those only")

            // Claiming a prefix another team claims, or uses, is 409.
            #expect(
                try await w.call(
                    .patch, "/v1/teams/squatter", token: w.adminToken, json: ["appleTeamIDs": ["ABCDE12345"]]
                ).status == 409)
            #expect(
                try await w.call(
                    .patch, "/v1/teams/shop", token: w.adminToken, json: ["appleTeamIDs": ["ABCDE12345", "ZZZZZ99999"]]
                ).status == 409)
            #expect(
                try await w.call(.patch, "/v1/teams/shop", token: w.adminToken, json: ["appleTeamIDs": ["abcde12345"]])
                    .status == 422)
            // Only an admin binds prefixes.
            #expect(
                try await w.call(.patch, "/v1/teams/squatter", token: squatter, json: ["appleTeamIDs": ["YYYYY88888"]])
                    .status == 403)
        }
    }
}
