import Foundation
import HummingbirdTesting
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServer
@testable import AASAServices

/// `WellKnownChannelHandler` answers the served files on the event loop; the router's
/// `WellKnownMiddleware` answers whatever it lets through. Both must send the same bytes: each
/// request here is asked, on a connection of its own, of two servers on one database, one with
/// the handler and one without, and the answers compared whole (but for `Date` and a request ID).
@Suite struct WellKnownOnEventLoopTests {
    static let path = ServedFileConnectionTests.path

    @Test func theHandlerAnswersAsTheRouterDoes() async throws {
        try await TestWorld.run(live: true) { w in
            let (etag, body) = try await ServedFileConnectionTests.published(w)
            let port = try #require(w.client.port)
            let requests = [
                "GET \(Self.path) HTTP/1.1|Host: a.example",
                "GET \(Self.path)?x=1&y HTTP/1.1|Host: A.Example.:443",
                "GET \(Self.path) HTTP/1.1|Host: a.example|If-None-Match: \"other\", W/\(etag)",
                "GET \(Self.path) HTTP/1.1|Host: a.example|If-None-Match: \"other\"",
                "HEAD \(Self.path) HTTP/1.1|Host: a.example",
                "GET \(Self.path) HTTP/1.1|Host: nobody.example",
                "HEAD \(Self.path) HTTP/1.1|Host: nobody.example",
                "GET /.well-known/assetlinks.json HTTP/1.1|Host: a.example",
                "GET \(Self.path) HTTP/1.1|Host: a.example|Host: b.example",
                "GET \(Self.path) HTTP/1.1|Host: a.example|Content-Length: 2",
                "POST \(Self.path) HTTP/1.1|Host: a.example|Content-Length: 0",
            ]
            try await TestWorld.run(
                live: true, databaseURL: w.databaseURL, configure: { $0.wellKnownOnEventLoop = false }
            ) {
                router in
                let routerPort = try #require(router.client.port)
                var statuses: [String] = []
                for request in requests {
                    // The server ends the connection after the answer; a body goes after the head.
                    let whole = request + "|Connection: close||" + (request.contains("Content-Length: 2") ? "{}" : "")
                    let ours = try await RawHTTP.exchange(port: port, whole)
                    let theirs = try await RawHTTP.exchange(port: routerPort, whole)
                    #expect(Self.withoutMadeUp(ours) == Self.withoutMadeUp(theirs), "\(request)")
                    statuses.append(RawHTTP.statuses(ours).first ?? "none")
                    #expect(ours.contains("\r\nServer: aasad\r\n") || ours.contains("\r\nserver: aasad\r\n"), "\(ours)")
                    #expect(ours.lowercased().contains("\r\ndate: "), "\(ours)")
                }
                #expect(statuses == ["200", "200", "304", "200", "200", "404", "404", "404", "400", "200", "405"])
                #expect(try await RawHTTP.exchange(port: port, requests[0] + "|Connection: close||").hasSuffix(body))
            }
        }
    }

    /// The answer without what each server makes up: its `Date`, and a request ID (the router's 405).
    static func withoutMadeUp(_ text: String) -> String {
        text.replacingOccurrences(of: #"(?i)\r\n(date|x-request-id): [^\r]*"#, with: "", options: .regularExpression)
            .replacingOccurrences(of: #""requestId":"[0-9a-f-]+""#, with: "", options: .regularExpression)
    }
}
