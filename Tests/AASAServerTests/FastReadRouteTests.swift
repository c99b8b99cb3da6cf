import Foundation
import HTTPTypes
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServer
@testable import AASAServices

/// The hot reads answered by `FastReadRoutes` send what the generated server sends: the same
/// status, content type and bytes for each route, for an answer and for a refusal, checked by
/// asking one database through two servers, one with the routes and one without; and each asked
/// twice, so the second answer is the read model's from memory.
@Suite struct FastReadRouteTests {
    static let app = "ABCDE12345.com.shop.app"

    @Test func eachRouteAnswersAsTheGeneratedServerDoes() async throws {
        try await TestWorld.run { w in
            let shop = try await Self.fixture(w)
            let blog = try await w.teamToken("blog", scopes: ["read"]).secret
            var requests: [(path: String, token: String, headers: [String: String])] = []
            for path in FastReadRoutes.paths.sorted() {
                let concrete = path.replacingOccurrences(of: "{team}", with: "shop")
                    .replacingOccurrences(of: "{host}", with: "example.com")
                requests.append((concrete, shop, [:]))
                requests.append((concrete, blog, [:]))  // a refusal, or another team's view
                requests.append((concrete, w.adminToken, ["Accept": "text/html"]))  // 406
                requests.append((concrete, w.adminToken, ["Accept": "application/*;q=0.5"]))
            }
            requests.append(("/v1/teams/sh%6Fp/apps", shop, [:]))  // a parameter is URI-decoded
            requests.append(("/v1/teams/sh%ZZp/apps", shop, [:]))  // and one that cannot be
            requests.append(("/v1/domains/EXAMPLE.com./grants", shop, [:]))  // a host as the API reads it
            requests.append(("/v1/whoami", shop, ["Accept": "application/json;q=0.1, text/html"]))
            requests.append(("/v1/whoami", shop, ["Accept": ";;"]))  // malformed
            requests.append(("/v1/teams/nobody/apps", w.adminToken, [:]))  // 404
            requests.append(("/v1/domains/example.com/grants", "not-a-token", [:]))  // 401
            let asked = requests
            // A second server on the same database, without the routes: each request is asked of
            // both, one after the other.
            try await TestWorld.run(databaseURL: w.databaseURL, configure: { $0.fastReads = false }) { generated in
                var statuses: Set<Int> = []
                for request in asked {
                    let label = "\(request.path) \(request.headers)"
                    let ours = try await w.call(.get, request.path, token: request.token, headers: request.headers)
                    // Asked again: the read model's answer from memory (issue 43) is the same one.
                    let again = try await w.call(.get, request.path, token: request.token, headers: request.headers)
                    #expect(
                        again.status == ours.status
                            && Self.withoutRequestID(again.text) == Self.withoutRequestID(ours.text),
                        "\(label), from memory")
                    let theirs = try await generated.call(
                        .get, request.path, token: request.token, headers: request.headers)
                    #expect(ours.status == theirs.status, "\(label)")
                    #expect(ours.headers[.contentType] == theirs.headers[.contentType], "\(label)")
                    // A problem's request ID is the one thing each server makes up.
                    #expect(Self.withoutRequestID(ours.text) == Self.withoutRequestID(theirs.text), "\(label)")
                    statuses.insert(ours.status)
                    if request.path == "/v1/teams/shop/apps", request.token == shop {
                        #expect(ours.text.contains("com.shop.app"), "the fixture is seen")
                    }
                }
                #expect(statuses.isSuperset(of: [200, 401, 404, 406]), "\(statuses)")
            }
        }
    }

    static func withoutRequestID(_ text: String) -> String {
        text.replacingOccurrences(of: #""requestId":"[0-9a-f-]+""#, with: "", options: .regularExpression)
    }

    /// Two teams, an iOS and an Android app, a domain with a grant and a golden URL; shop's token.
    static func fixture(_ w: TestWorld) async throws -> String {
        try await w.createTeam("shop")
        try await w.createTeam("blog")
        let shop = try await w.teamToken("shop", scopes: ["read", "write"]).secret
        let admin = w.adminToken
        #expect(try await w.call(.post, "/v1/teams/shop/apps", token: admin, json: ["appID": Self.app]).status == 201)
        let android: [String: Any] = [
            "appID": "com.shop.app", "platform": "android",
            "fingerprints": [Array(repeating: "AB", count: 32).joined(separator: ":")],
        ]
        #expect(try await w.call(.post, "/v1/teams/shop/apps", token: admin, json: android).status == 201)
        #expect(try await w.call(.post, "/v1/domains", token: admin, json: ["host": "example.com"]).status == 201)
        let grant = ["pathPrefixes": ["/shop"]]
        #expect(try await w.call(.put, "/v1/domains/example.com/grants/shop", token: admin, json: grant).status == 200)
        let rules = "/v1/domains/example.com/apps/\(Self.app)/rules"
        #expect(try await w.call(.put, rules, token: shop, json: ["rules": [["/": "/shop/*"]]]).status == 200)
        let expectation: [String: Any] = ["url": "https://example.com/shop/x", "kind": "opens", "appID": Self.app]
        let created = try await w.call(.post, "/v1/domains/example.com/expectations", token: shop, json: expectation)
        #expect(created.status == 201, "\(created.text)")
        return shop
    }
}
