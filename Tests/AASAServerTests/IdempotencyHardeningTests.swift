import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import HTTPTypes
import PostgresNIO
import Testing

/// Issue 15, findings 3 and 7: what an Idempotency-Key stores and what it answers for.
@Suite struct IdempotencyHardeningTests {
    /// A token's secret is never stored for a replay: the idempotency table holds no secret, and a
    /// retry with the same key is 409 naming the token instead of a second secret or the first.
    @Test func tokenCreationIsNotReplayedAndItsSecretIsNotStored() async throws {
        try await TestWorld.run { w in
            try await w.createTeam("own")
            let key = ["Idempotency-Key": "token-1"]
            let body = #"{"name":"ci","scopes":["write"]}"#
            let first = try await w.call(.post, "/v1/teams/own/tokens", token: w.adminToken, raw: body, headers: key)
            #expect(first.status == 201)
            let secret = try #require(first.object["secret"] as? String)
            let id = try #require((first.object["token"] as? [String: Any])?["id"] as? String)

            let stored = try await w.withDatabase { database in
                try await database.read(logger: .init(label: "t")) { session in
                    try await session.all("SELECT encode(body, 'escape') FROM idempotency_keys", as: String.self)
                }
            }
            #expect(stored.count == 1)
            #expect(stored.allSatisfy { !$0.contains(secret) && !$0.contains("\"secret\"") })

            let again = try await w.call(.post, "/v1/teams/own/tokens", token: w.adminToken, raw: body, headers: key)
            #expect(again.status == 409)
            #expect(again.problemRules == ["secret-not-replayed"])
            #expect(again.text.contains(id))
            #expect(!again.text.contains(secret))
            let tokens = try await w.call(.get, "/v1/teams/own/tokens", token: w.adminToken)
            #expect((tokens.object["items"] as? [[String: Any]])?.count == 1, "the retry created nothing")
        }
    }

    /// A dry run and a real call differ only in the query: one key cannot make the second replay
    /// the first (the real apply would silently not happen).
    @Test func theQueryIsPartOfTheFingerprint() async throws {
        try await TestWorld.run { w in
            try await w.createTeam("own")
            let manifest = #"{"apps":[{"appID":"ABCDE12345.com.own.app"}],"domains":[]}"#
            let key = ["Idempotency-Key": "apply-1"]
            let dry = try await w.call(
                .post, "/v1/teams/own/manifest?dryRun=true", token: w.adminToken, raw: manifest, headers: key)
            #expect(dry.status == 200)
            let real = try await w.call(
                .post, "/v1/teams/own/manifest", token: w.adminToken, raw: manifest, headers: key)
            #expect(real.status == 422)
            #expect(real.problemRules == ["idempotency-key-reused"])
            #expect(try await w.call(.get, "/v1/apps/ABCDE12345.com.own.app", token: w.adminToken).status == 404)
        }
    }
}
