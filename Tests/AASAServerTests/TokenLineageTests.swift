import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import HTTPTypes
import Testing

/// Issue 15, finding 5: a token a team token creates may not outlive it, and revoking a token
/// revokes every token it created, and theirs.
@Suite struct TokenLineageTests {
    static func create(_ w: TestWorld, by token: String, expiresAt: String? = nil) async throws -> TestWorld.Reply {
        var body: [String: Any] = ["name": "child", "scopes": ["write"]]
        if let expiresAt { body["expiresAt"] = expiresAt }
        return try await w.call(.post, "/v1/teams/shop/tokens", token: token, json: body)
    }

    @Test func aChildNeverOutlivesItsParent() async throws {
        try await TestWorld.run { w in
            try await w.createTeam("shop")
            let parentExpiry = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))
            let parent = try await w.teamToken("shop", scopes: ["write"], expiresAt: parentExpiry).secret

            let later = try await Self.create(
                w, by: parent, expiresAt: ISO8601DateFormatter().string(from: Date().addingTimeInterval(7200)))
            #expect(later.status == 422)
            #expect(later.problemRules == ["outlives-parent"])
            #expect(later.problemFields == ["/expiresAt"])

            let inherited = try await Self.create(w, by: parent)
            #expect(inherited.status == 201)
            let expiry = (inherited.object["token"] as? [String: Any])?["expiresAt"] as? String
            #expect(
                expiry.flatMap { ISO8601DateFormatter().date(from: $0) }.map {
                    abs($0.timeIntervalSince(ISO8601DateFormatter().date(from: parentExpiry)!)) < 1
                } == true,
                "no expiry asked: the parent's (\(String(describing: expiry)))")
            let sooner = try await Self.create(
                w, by: parent, expiresAt: ISO8601DateFormatter().string(from: Date().addingTimeInterval(600)))
            #expect(sooner.status == 201)
            // An admin's tokens answer to the organisation: no lineage, no inherited expiry.
            let byAdmin = try await Self.create(w, by: w.adminToken)
            #expect((byAdmin.object["token"] as? [String: Any])?["expiresAt"] == nil)
        }
    }

    @Test func revokingAParentRevokesItsDescendants() async throws {
        try await TestWorld.run { w in
            try await w.createTeam("shop")
            let parent = try await w.teamToken("shop", scopes: ["write"])
            let child = try await Self.create(w, by: parent.secret)
            let childSecret = try #require(child.object["secret"] as? String)
            let grandchild = try await Self.create(w, by: childSecret)
            let grandchildSecret = try #require(grandchild.object["secret"] as? String)
            let sibling = try await w.teamToken("shop", scopes: ["read"])
            #expect(try await w.call(.get, "/v1/whoami", token: grandchildSecret).status == 200)

            #expect(try await w.call(.delete, "/v1/teams/shop/tokens/\(parent.id)", token: w.adminToken).status == 204)
            for secret in [parent.secret, childSecret, grandchildSecret] {
                let reply = try await w.call(.get, "/v1/whoami", token: secret)
                #expect(reply.status == 401)
                #expect(reply.text.contains("revoked"))
            }
            #expect(try await w.call(.get, "/v1/whoami", token: sibling.secret).status == 200, "other tokens stay")
            let audit = try await w.call(.get, "/v1/audit?limit=1", token: w.adminToken)
            let after = (audit.object["items"] as? [[String: Any]])?.first?["after"] as? [String: Any]
            #expect(after?["revokedDescendants"] as? Int == 2)
        }
    }
}
