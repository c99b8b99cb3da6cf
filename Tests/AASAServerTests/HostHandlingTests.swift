import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// Issue 15, finding 11: two Host headers are 400 (RFC 9112), and an alias that moves from one
/// domain to another is answered by its new domain at once, not at the next reload.
@Suite struct HostHandlingTests {
    /// The status line's code of a raw HTTP/1.1 request (no client library merges its headers).
    static func rawStatus(port: Int, _ request: String) async throws -> String {
        RawHTTP.statuses(try await RawHTTP.exchange(port: port, request)).first ?? "none"
    }

    @Test func twoHostHeadersAre400() async throws {
        try await TestWorld.run(live: true) { w in
            let port = try #require(w.client.port)
            let path = "/.well-known/apple-app-site-association"
            #expect(
                try await Self.rawStatus(
                    port: port, "GET \(path) HTTP/1.1|Host: a.example|Host: b.example|Connection: close||") == "400")
            #expect(
                try await Self.rawStatus(
                    port: port, "GET /v1/teams HTTP/1.1|Host: a.example|Host: b.example|Connection: close||") == "400")
            #expect(
                try await Self.rawStatus(port: port, "GET \(path) HTTP/1.1|Host: a.example|Connection: close||")
                    == "404")
        }
    }

    @Test func aMovedAliasIsServedByItsNewDomainAtOnce() async throws {
        try await TestWorld.run(live: true) { w in
            try await w.createTeam("own")
            try #require(
                try await w.call(
                    .post, "/v1/teams/own/apps", token: w.adminToken, json: ["appID": "ABCDE12345.com.own.app"]
                ).status == 201)
            for (host, aliases) in [("a.example", ["shared.example"]), ("b.example", [])] {
                try #require(
                    try await w.call(
                        .post, "/v1/domains", token: w.adminToken, json: ["host": host, "aliases": aliases]
                    ).status == 201)
                try #require(
                    try await w.call(
                        .put, "/v1/domains/\(host)/grants/own", token: w.adminToken, json: ["pathPrefixes": ["/"]]
                    ).status == 200)
                try #require(
                    try await w.call(
                        .put, "/v1/domains/\(host)/apps/ABCDE12345.com.own.app/rules", token: w.adminToken,
                        json: ["rules": [["/": "/\(host)/*"]]]
                    ).status == 200)
                try #require(
                    try await w.call(.post, "/v1/domains/\(host)/publish", token: w.adminToken, json: ["reason": "r1"])
                        .status == 201)
            }
            let port = try #require(w.client.port)
            func served(_ host: String) async throws -> String? {
                let reply = try await Curl.get(
                    "http://127.0.0.1:\(port)/.well-known/apple-app-site-association", host: host)
                return reply.status == 200 ? String(decoding: reply.body, as: UTF8.self) : nil
            }
            #expect(try await served("shared.example")?.contains("a.example") == true)
            #expect(
                try await w.call(.patch, "/v1/domains/a.example", token: w.adminToken, json: ["aliases": [String]()])
                    .status == 200)
            #expect(try await served("shared.example") == nil, "an alias dropped is not served by its old domain")
            #expect(
                try await w.call(
                    .patch, "/v1/domains/b.example", token: w.adminToken, json: ["aliases": ["shared.example"]]
                ).status == 200)
            #expect(
                try await served("shared.example")?.contains("b.example") == true,
                "and its new domain answers for it at once")
        }
    }
}
