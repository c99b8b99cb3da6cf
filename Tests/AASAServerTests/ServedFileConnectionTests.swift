import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// The served file over one raw connection, as a CDN's fetcher may use it: several requests on a
/// keep-alive connection (a query, a host written the other way, a conditional request, a body on
/// a GET, an unknown host, HEAD), and a request of the API's pipelined ahead of the file, whose
/// answer must come first. A fast path for the served file in front of the router (one was tried
/// in issue 23) must keep all of this.
@Suite struct ServedFileConnectionTests {
    static let path = "/.well-known/apple-app-site-association"

    /// Publishes a.example and answers its served file's ETag and bytes.
    static func published(_ w: TestWorld) async throws -> (etag: String, body: String) {
        try await w.createTeam("own")
        try #require(
            try await w.call(
                .post, "/v1/teams/own/apps", token: w.adminToken, json: ["appID": "ABCDE12345.com.own.app"]
            )
            .status == 201)
        try #require(
            try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "a.example"]).status == 201)
        try #require(
            try await w.call(
                .put, "/v1/domains/a.example/grants/own", token: w.adminToken, json: ["pathPrefixes": ["/"]]
            )
            .status == 200)
        try #require(
            try await w.call(
                .put, "/v1/domains/a.example/apps/ABCDE12345.com.own.app/rules", token: w.adminToken,
                json: ["rules": [["/": "/shop/*"]]]
            ).status == 200)
        try #require(
            try await w.call(.post, "/v1/domains/a.example/publish", token: w.adminToken, json: ["reason": "r"]).status
                == 201)
        let port = try #require(w.client.port)
        let reply = try await Curl.get("http://127.0.0.1:\(port)\(path)", host: "a.example")
        return (try #require(reply.headers["etag"]), String(decoding: reply.body, as: UTF8.self))
    }

    @Test func oneConnectionAsksForTheFileAgainAndAgain() async throws {
        try await TestWorld.run(live: true) { w in
            let (etag, body) = try await Self.published(w)
            let port = try #require(w.client.port)
            let text = try await RawHTTP.exchange(
                port: port,
                "GET \(Self.path)?x=1 HTTP/1.1|Host: A.Example.:443||"
                    + "GET \(Self.path) HTTP/1.1|Host: a.example|If-None-Match: W/\(etag)||"
                    + "GET \(Self.path) HTTP/1.1|Host: a.example|Content-Length: 5||hello"
                    + "GET \(Self.path) HTTP/1.1|Host: nobody.example||"
                    + "HEAD \(Self.path) HTTP/1.1|Host: a.example|Connection: close||")
            #expect(RawHTTP.statuses(text) == ["200", "304", "200", "404", "200"], "\(text)")
            #expect(text.components(separatedBy: body).count == 3, "the file twice: the 304 and the HEAD carry none")
            #expect(text.contains("urn:aasad:problem:not-found"))
        }
    }

    @Test func aPipelinedRequestOfTheAPIsIsAnsweredFirst() async throws {
        try await TestWorld.run(live: true) { w in
            let (_, body) = try await Self.published(w)
            let port = try #require(w.client.port)
            let text = try await RawHTTP.exchange(
                port: port,
                "GET /v1/whoami HTTP/1.1|Host: a.example|Authorization: Bearer \(w.adminToken)||"
                    + "GET \(Self.path) HTTP/1.1|Host: a.example|Connection: close||")
            #expect(RawHTTP.statuses(text) == ["200", "200"], "\(text)")
            let whoami = try #require(text.range(of: "\"tokenID\""))
            let file = try #require(text.range(of: body))
            #expect(whoami.lowerBound < file.lowerBound, "answers in the order asked")
        }
    }
}
