import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// Issue 15, finding 8: input that used to reach PostgreSQL or the body reader and come back as
/// 500 is refused first, with 400 or 413 naming where.
@Suite struct InputHardeningTests {
    static let nul = "\\u0000"

    @Test func aNulAnywhereIs400NamingTheField() async throws {
        try await TestWorld.run(live: true) { w in
            try await w.createTeam("shop")
            let cases: [(HTTPRequest.Method, String, String, String)] = [
                (.post, "/v1/teams", #"{"name":"a","displayName":"x\#(Self.nul)y"}"#, "/displayName"),
                (.post, "/v1/teams/shop/tokens", #"{"name":"ci\#(Self.nul)","scopes":["read"]}"#, "/name"),
                (
                    .post, "/v1/domains", #"{"host":"example.com","substitutionVariables":{"v":["a\#(Self.nul)"]}}"#,
                    "/substitutionVariables/v/0"
                ),
                (
                    .post, "/v1/teams/shop/manifest?dryRun=true",
                    #"{"apps":[],"domains":[{"host":"x\#(Self.nul)","apps":[]}]}"#, "/domains/0/host"
                ),
                (.post, "/v1/match", #"{"url":"https://example.com/\#(Self.nul)"}"#, "/url"),
            ]
            for (method, path, body, field) in cases {
                let reply = try await w.call(method, path, token: w.adminToken, raw: body)
                #expect(reply.status == 400, "\(path): \(reply.text)")
                #expect(reply.problemFields == [field], "\(path)")
                #expect(reply.problemRules == ["no-nul"])
            }
            let filter = try await w.call(.get, "/v1/audit?team=%00", token: w.adminToken)
            #expect(filter.status == 400)
            #expect(filter.problemFields == ["team"])
            let pathParam = try await w.call(.get, "/v1/teams/a%00b", token: w.adminToken)
            #expect(pathParam.status == 400)
            #expect(pathParam.problemFields == ["path"])
            #expect(
                try await w.call(.get, "/v1/teams", token: w.adminToken).object["items"].map { ($0 as? [Any])?.count }
                    == 1)
        }
    }

    @Test func namesAndStringsHaveTheirMaximumLength() async throws {
        try await TestWorld.run(live: true) { w in
            try await w.createTeam("shop")
            let long = String(repeating: "n", count: 201)
            let team = try await w.call(.patch, "/v1/teams/shop", token: w.adminToken, json: ["displayName": long])
            #expect(team.status == 400)
            #expect(team.problemRules == ["maxLength"])
            let token = try await w.call(
                .post, "/v1/teams/shop/tokens", token: w.adminToken, json: ["name": long, "scopes": ["read"]])
            #expect(token.status == 400)
            #expect(token.problemFields == ["/name"])
            let huge = String(repeating: "p", count: 5000)
            let rules = try await w.call(
                .post, "/v1/match", token: w.adminToken, json: ["url": "https://example.com/" + huge])
            #expect(rules.status == 400)
            #expect(rules.problemRules == ["maxLength"])
        }
    }

    /// A chunked body gives no Content-Length: it is cut off at the limit and answered 413, with
    /// or without a token (it was a 500 from NIO's byte limit).
    @Test func aChunkedBodyOverTheLimitIs413() async throws {
        try await TestWorld.run(live: true) { w in
            let port = try #require(w.client.port)
            let huge = #"{"name":""# + String(repeating: "x", count: 100 * 1024) + #""}"#
            for token in [w.adminToken, nil] {
                var headers = ["Transfer-Encoding": "chunked", "Content-Type": "application/json"]
                if let token { headers["Authorization"] = "Bearer \(token)" }
                let reply = try await Curl.get(
                    "http://127.0.0.1:\(port)/v1/teams", headers: headers, method: "POST", body: huge)
                #expect(reply.status == 413, "\(String(decoding: reply.body, as: UTF8.self))")
                #expect(reply.headers["content-type"] == "application/problem+json")
            }
        }
    }

    /// Found by schemathesis: the generated code URI-decodes header values, so an If-Match of
    /// `%22…` over the declared 100 characters shrank under the bound and came back 412.
    @Test func anIfMatchOverItsBoundIs400AsSent() async throws {
        try await TestWorld.run(live: true) { w in
            try #require(
                try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "example.com"]).status == 201
            )
            let long = String(repeating: "%22", count: 40)
            let reply = try await w.call(
                .delete, "/v1/domains/example.com", token: w.adminToken, headers: ["If-Match": long])
            #expect(reply.status == 400)
            #expect(reply.problemFields == ["If-Match"])
            #expect(
                try await w.call(.get, "/v1/domains/example.com", token: w.adminToken).status == 200,
                "nothing was deleted")
        }
    }

    /// openapi.yaml's `maxLength` counts code points, as JSON Schema does, not what Swift's `count`
    /// counts (grapheme clusters): 30 letters each with two combining marks are 90 code points,
    /// over a 64-character bound, though `count` says 30. Schemathesis found the audit filter
    /// taking such a string.
    @Test func maxLengthCountsCodePointsAsTheSchemaDoes() async throws {
        try await TestWorld.run { w in
            let marked = String(repeating: "o\u{0301}\u{0323}", count: 30)
            #expect(marked.count == 30 && marked.unicodeScalars.count == 90)
            let query = marked.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? ""
            let reply = try await w.call(.get, "/v1/audit?action=" + query, token: w.adminToken)
            #expect(reply.status == 400 && reply.problemFields == ["action"], "\(reply.text)")
        }
    }
}
