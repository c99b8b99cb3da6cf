import AASAModel
import AASAStore
import AASATestSupport
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import PostgresNIO
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServer
@testable import AASAServices

/// Issue 49 through the API: each finding's refusal. A date a request sets is bounded at the
/// edge and can never trap in the store; a body is parsed only for a caller who may send it;
/// lists of problems are capped; targets are told only to whom they concern.
@Suite struct HardeningRound5Tests {
    static func bodies(_ bytes: Int) -> @Sendable (inout AppConfig) -> Void { { $0.maxBodyBytes = bytes } }

    static let extremes = ["300000-01-01T00:00:00Z", "-1", "+012026-01-01T00:00:00Z", "0000-12-31T23:59:59Z"]

    /// Finding 1: every date-time a request sets, in the query or the body, outside years
    /// 0001-9999 is 400 naming it; 9999-12-31T23:59:59Z is taken. Before, year 300000 from any read
    /// token ended the whole process (this test process with it: the router runs in-process).
    @Test func datesOutsideYearsOneToNineThousandAreRefusedNamingTheField() async throws {
        try await TestWorld.run { w in
            try #require(try await w.createTeam("shop").status == 201)
            let read = try await w.teamToken("shop", scopes: ["read"]).secret
            for name in ["since", "until"] {
                for value in Self.extremes {
                    let encoded = value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
                    let reply = try await w.call(.get, "/v1/audit?\(name)=\(encoded)", token: read)
                    #expect(reply.status == 400, "\(name)=\(value): \(reply.text)")
                    #expect(reply.problemFields == [name], "\(name)=\(value): \(reply.text)")
                    #expect(reply.headers[.contentType] == "application/problem+json")
                }
                let last = try await w.call(.get, "/v1/audit?\(name)=9999-12-31T23:59:59Z", token: read)
                #expect(last.status == 200, "\(last.text)")
            }
            for value in Self.extremes {
                let reply = try await w.call(
                    .post, "/v1/teams/shop/tokens", token: w.adminToken,
                    json: ["name": "far", "scopes": ["read"], "expiresAt": value])
                #expect(reply.status == 400, "\(value): \(reply.text)")
                #expect(reply.problemFields == ["/expiresAt"] && reply.problemRules == ["date-range"], "\(reply.text)")
            }
            let latest = try await w.call(
                .post, "/v1/teams/shop/tokens", token: w.adminToken,
                json: ["name": "last-day", "scopes": ["read"], "expiresAt": "9999-12-31T23:59:59Z"])
            #expect(latest.status == 201, "\(latest.text)")
            // Nothing was made by the refusals, and the service still answers.
            let tokens = try await w.call(.get, "/v1/teams/shop/tokens", token: w.adminToken)
            #expect((tokens.object["items"] as? [Any])?.count == 2, "\(tokens.text)")
        }
    }

    /// Finding 1 through the console: its audit filter's days pass the same bound (the filter built
    /// the API's query from them directly, around the generated decoder).
    @Test func theConsolesAuditFilterRefusesDaysOutsideTheRange() async throws {
        try await TestWorld.run { w in
            let browser = ConsoleTests.Browser(w)
            #expect(try await browser.signIn(w.adminToken).status == 303)
            for day in ["300000-01-01", "-1", "0000-01-01"] {
                let page = try await browser.get("/console/audit?since=\(day)")
                #expect(page.status == 400, "since=\(day): \(page.status)")
                let until = try await browser.get("/console/audit?until=\(day)")
                #expect(until.status == 400, "until=\(day): \(until.status)")
            }
            #expect(try await browser.get("/console/audit?since=9999-12-31").status == 200)
            #expect(try await browser.get("/console/audit?until=9999-12-31").status == 200)
        }
    }

    /// Finding 1, the class: a `Date` PostgreSQL cannot hold, bound anywhere in a query, throws
    /// for that query alone. Before, PostgresNIO's `Int64(_:)` trapped and ended the process.
    @Test func aDateNoTimestampHoldsFailsItsQueryAndNotTheProcess() async throws {
        try await TestDatabase.shared.withDatabase { url in
            try await TestDatabase.shared.withClient(url: url) { database in
                try await database.read(logger: Logger(label: "test")) { session in
                    for seconds in [1e16, -1e16, .infinity, .nan] {
                        await #expect(throws: TimestampOutOfRange.self) {
                            try await session.first(
                                "SELECT \(Date(timeIntervalSince1970: seconds))::text", as: String.self)
                        }
                    }
                    let optional: Date? = Date(timeIntervalSince1970: 1e16)
                    await #expect(throws: TimestampOutOfRange.self) {
                        try await session.first("SELECT \(optional)::text", as: String.self)
                    }
                    // The ends PostgreSQL holds still bind, and the connection goes on.
                    let lastSecond = Date(timeIntervalSince1970: 253_402_300_799)
                    let last = try await session.first(
                        "SELECT to_char(\(lastSecond) AT TIME ZONE 'UTC', 'YYYY-MM-DD')", as: String.self)
                    #expect(last == "9999-12-31")
                }
            }
        }
    }

    /// Finding 1, the transcoder: what the edge takes and refuses, as a unit.
    @Test func theBoundedTranscoderTakesYearsOneToNineThousandOnly() throws {
        let transcoder = BoundedDateTranscoder()
        for good in ["0001-01-01T00:00:00Z", "2026-11-28T12:00:00Z", "9999-12-31T23:59:59Z"] {
            #expect(throws: Never.self, "\(good)") { _ = try transcoder.decode(good) }
        }
        for bad in Self.extremes + ["", String(repeating: "9", count: 200), "10000-01-01T00:00:00Z"] {
            #expect(throws: DateOutOfRange.self, "\(bad)") { _ = try transcoder.decode(bad) }
        }
    }

    /// Finding 2: another team's token, and a read token of the app's own team, are refused
    /// before a byte of the body is parsed (404 and 403, not 422 with an error per statement);
    /// more statements than the contract's 20 are one error; a problem lists at most 100 entries.
    @Test func thePlaySnippetIsAuthorizedBeforeItsBodyAndBounded() async throws {
        try await TestWorld.run(configure: Self.bodies(2 << 20)) { w in
            for team in ["shop", "blog"] { try #require(try await w.createTeam(team).status == 201) }
            let app = try await w.call(
                .post, "/v1/teams/shop/apps", token: w.adminToken,
                json: ["appID": "com.shop.app", "platform": "android", "fingerprints": [AndroidKeyTests.signing]])
            try #require(app.status == 201, "\(app.text)")
            let blogRead = try await w.teamToken("blog", scopes: ["read"]).secret
            let shopRead = try await w.teamToken("shop", scopes: ["read"]).secret
            let shopWrite = try await w.teamToken("shop", scopes: ["write"]).secret
            let huge = "[" + Array(repeating: "{}", count: 300_000).joined(separator: ",") + "]"
            let path = "/v1/apps/com.shop.app/keys/play-signing"
            let other = try await w.call(.post, path, token: blogRead, raw: huge)
            #expect(other.status == 404 && other.body.count < 2_000, "\(other.status) \(other.body.count) bytes")
            let readOnly = try await w.call(.post, path, token: shopRead, raw: huge)
            #expect(readOnly.status == 403 && readOnly.body.count < 2_000, "\(readOnly.status)")
            // Not even JSON: the refusal comes first all the same.
            #expect(try await w.call(.post, path, token: blogRead, raw: "[{,").status == 404)
            let tooMany = try await w.call(.post, path, token: shopWrite, raw: huge)
            #expect(tooMany.status == 422 && tooMany.problemRules == ["maxItems"], "\(tooMany.text.prefix(500))")
            #expect(tooMany.body.count < 2_000, "\(tooMany.body.count) bytes")
        }
    }

    /// Finding 2: any problem lists at most 100 errors, the last saying how many more there were.
    @Test func aProblemListsAtMostAHundredErrors() {
        let errors = (0..<340_000).map { FieldError(field: "/\($0)", rule: "package", message: "m") }
        let capped = ProblemResponse.capped(errors) { FieldError(field: "", rule: "more", message: $0) }
        #expect(capped.count == 100)
        #expect(capped.last?.message == "… and 339901 more")
        #expect(ProblemResponse.capped(Array(errors.prefix(100))) { _ in errors[0] }.count == 100)
        let detail = ServiceError.invalid(errors).detail ?? ""
        #expect(detail.count < 200 && detail.hasSuffix("… and 339995 more"), "\(detail)")
    }

    /// Finding 3: plain http (insecure) carries a credential only to this machine.
    @Test func insecureHTTPIsForLoopbackOnly() async throws {
        for (url, allowed) in [
            ("http://127.0.0.1:9000", true), ("http://localhost:9000", true), ("http://[::1]:9000", true),
            ("http://127.1.2.3", true), ("http://storage.example.com", false), ("http://10.0.0.5:9000", false),
            ("http://127.0.0.1.evil.example", false), ("http://localhost.evil.example", false),
        ] {
            let problem = TargetSpecCheck.urlProblem(url, insecure: true, pathAllowed: false)
            #expect((problem == nil) == allowed, "\(url): \(problem ?? "taken")")
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ins-\(UUID())").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestWorld.run { w in
            try #require(
                try await w.call(
                    .post, "/v1/domains", token: w.adminToken, json: ["host": "shop.test", "webRoots": [root]]
                )
                .status == 201)
            let reply = try await w.call(
                .put, "/v1/domains/shop.test/targets", token: w.adminToken,
                json: [
                    "targets": [
                        ["kind": "webRoot", "path": root],
                        ["kind": "purge", "provider": "http", "url": "http://cdn.example.com/purge", "insecure": true],
                    ]
                ])
            #expect(reply.status == 422 && reply.problemRules == ["https-url"], "\(reply.text)")
            #expect(reply.problemFields == ["/targets/1/url"], "\(reply.text)")
        }
    }

    /// Finding 4 and the targets audit: an admin reads every target whole, a team holding a grant
    /// the kinds and outcomes without endpoints or URLs, any other team nothing; a change of one
    /// target's settings is in the audit's before and after.
    @Test func targetsAreToldOnlyToWhomTheyConcern() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tg-\(UUID())").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestWorld.run { w in
            for team in ["shop", "blog"] { try #require(try await w.createTeam(team).status == 201) }
            try #require(
                try await w.call(
                    .post, "/v1/domains", token: w.adminToken, json: ["host": "shop.test", "webRoots": [root]]
                )
                .status == 201)
            try #require(
                try await w.call(
                    .put, "/v1/domains/shop.test/grants/shop", token: w.adminToken, json: ["pathPrefixes": ["/"]]
                ).status == 200)
            func put(_ purgeURL: String) async throws {
                let reply = try await w.call(
                    .put, "/v1/domains/shop.test/targets", token: w.adminToken,
                    json: [
                        "targets": [
                            ["kind": "webRoot", "path": root],
                            ["kind": "purge", "provider": "http", "url": purgeURL, "method": "POST"],
                        ]
                    ])
                try #require(reply.status == 200, "\(reply.text)")
            }
            try await put("https://purge.internal.example/v1/zone-one")
            try await put("https://purge.internal.example/v1/zone-two")

            let admin = try await w.call(.get, "/v1/domains/shop.test/targets", token: w.adminToken)
            #expect(admin.text.contains("zone-two") && admin.text.contains(root), "\(admin.text)")
            let shop = try await w.call(
                .get, "/v1/domains/shop.test/targets", token: try await w.teamToken("shop", scopes: ["read"]).secret)
            #expect(shop.status == 200, "\(shop.text)")
            #expect(!shop.text.contains("purge.internal") && !shop.text.contains(root), "\(shop.text)")
            let kinds = (shop.object["targets"] as? [[String: Any]] ?? []).compactMap {
                ($0["target"] as? [String: Any])?["kind"] as? String
            }
            #expect(kinds == ["webRoot", "purge"], "\(shop.text)")
            let blog = try await w.call(
                .get, "/v1/domains/shop.test/targets", token: try await w.teamToken("blog", scopes: ["read"]).secret)
            #expect(blog.status == 404 && !blog.text.contains("purge.internal"), "\(blog.text)")

            let audit = try await w.call(.get, "/v1/audit?action=domain.targets", token: w.adminToken)
            let changes = audit.object["items"] as? [[String: Any]] ?? []
            try #require(changes.count == 2, "\(audit.text)")
            let latest = try JSONSerialization.data(withJSONObject: changes[0])
            let text = String(decoding: latest, as: UTF8.self)
            #expect(text.contains("zone-one") && text.contains("zone-two"), "before and after whole: \(text)")
        }
    }

    /// Finding 6: a cursor whose key holds U+0000 is 400 `cursor`, on every list it pages.
    @Test func aCursorHoldingNULIsRefused() async throws {
        try await TestWorld.run { w in
            for (path, letter) in [("/v1/domains", "d"), ("/v1/teams", "t"), ("/v1/audit", "e")] {
                let cursor = Data("\(letter)a\u{0}b".utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                let reply = try await w.call(.get, "\(path)?cursor=\(cursor)", token: w.adminToken)
                #expect(reply.status == 400 && reply.problemRules == ["cursor"], "\(path): \(reply.text)")
            }
        }
    }

    /// Finding 7: no token, an unknown token, or a team token on an admin route is refused before
    /// the body is parsed: a body that could not even be parsed gets the same 401 or 403.
    @Test func aBodyIsParsedOnlyAfterItsSenderIsKnown() async throws {
        try await TestWorld.run(configure: Self.bodies(4 << 20)) { w in
            try #require(try await w.createTeam("shop").status == 201)
            let write = try await w.teamToken("shop", scopes: ["write"]).secret
            // Valid JSON that the input check refuses (null, a long string): before, it was 400 to
            // anyone, parsed before the token was looked at.
            let refusable = "{\"aasa\": \"" + String(repeating: "\\udbf6\\udd5a", count: 150_000) + "\", \"x\": null}"
            #expect(try await w.call(.post, "/v1/imports", raw: refusable).status == 401)
            #expect(try await w.call(.post, "/v1/imports", token: "aasa_unknown", raw: refusable).status == 401)
            for route in EarlyRefusal.adminOnly {
                let path = route.template.replacingOccurrences(of: "{team}", with: "shop")
                    .replacingOccurrences(of: "{host}", with: "shop.test")
                    .replacingOccurrences(of: "{name}", with: "github")
                let reply = try await w.call(route.method, path, token: write, raw: "{\"a\": null, \"a\": [")
                #expect(reply.status == 403, "\(route.method) \(path): \(reply.status) \(reply.text)")
            }
            // The admin's own body is parsed, and its faults named as before.
            let admin = try await w.call(.post, "/v1/teams", token: w.adminToken, raw: "{\"name\": null}")
            #expect(admin.status == 400 && admin.problemFields == ["/name"], "\(admin.text)")
        }
    }

    /// Finding 7: `EarlyRefusal.adminOnly` is every operation openapi.yaml calls "(admin)" that takes
    /// a body, and nothing else.
    @Test func theEarlyAdminRefusalsAreTheContractsAdminOperations() throws {
        let contract = try String(contentsOfFile: TestDatabase.repositoryRoot + "/openapi.yaml", encoding: .utf8)
        var marked = Set<String>()
        var path = ""
        var method = ""
        var hasBody = false
        var admin = false
        func close() {
            if admin && hasBody && !method.isEmpty { marked.insert("\(method.uppercased()) \(path)") }
            method = ""
            hasBody = false
            admin = false
        }
        for line in contract.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  /v1/") {
                close()
                path = String(line.dropFirst(2).dropLast())
            } else if let m = ["get", "put", "post", "patch", "delete"].first(where: { line == "    \($0):" }) {
                close()
                method = m
            } else if line.hasPrefix("      summary:"), line.contains("(admin)") {
                admin = true
            } else if line.hasPrefix("      requestBody:") {
                hasBody = true
            } else if line.hasPrefix("components:") {
                close()
                break
            }
        }
        let table = Set(EarlyRefusal.adminOnly.map { "\($0.method.rawValue) \($0.template)" })
        #expect(marked.isSubset(of: table), "missing: \(marked.subtracting(table).sorted())")
    }

    /// Finding 5: after the served aasactl is rewritten in place (same inode, another length), an
    /// answer's length and checksum are those of the bytes it carries, and the next response on
    /// the same connection begins where it should. Before, both were the start-up file's.
    @Test func theServedCLIIsTheBytesItsLengthAndChecksumDescribe() async throws {
        let dir = try PublishingTests.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/aasactl-linux-x86_64"
        // The same inode throughout, as `cp` over a file or an in-place package upgrade leaves it.
        @Sendable func overwriteInPlace(_ text: String) throws {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
            try #require(fd >= 0)
            defer { close(fd) }
            let written = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, text.utf8.count) }
            try #require(written == text.utf8.count)
        }
        try overwriteInPlace(String(repeating: "A", count: 1_000))
        let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        let serveDir: @Sendable (inout AppConfig) -> Void = { $0.cliDirectory = dir }
        try await TestWorld.run(live: true, configure: serveDir) { w in
            let first = try await w.call(.get, "/v1/cli/aasactl?arch=x86_64")
            #expect(first.body.count == 1_000 && first.headers[.contentLength] == "1000")
            let upgraded = String(repeating: "B", count: 3_000)
            try overwriteInPlace(upgraded)
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int == inode)
            let sha = SHA256.hash(data: Data(upgraded.utf8)).map { String(format: "%02x", $0) }.joined()
            let second = try await w.call(.get, "/v1/cli/aasactl?arch=x86_64")
            #expect(second.body == Array(upgraded.utf8))
            #expect(second.headers[HTTPField.Name("X-Checksum-SHA256")!] == sha)
            #expect(second.headers[.contentLength] == "3000")
            let index = try await w.call(.get, "/v1/cli")
            let listed = (index.object["binaries"] as? [[String: Any]])?.first
            #expect(listed?["sha256"] as? String == sha && listed?["size"] as? Int == 3_000, "\(index.text)")
            // Two requests on one kept-alive connection: the second answer starts right after the
            // first one's declared length.
            let port = try #require(w.client.port)
            let raw = try await RawHTTP.exchange(
                port: port,
                "GET /v1/cli/aasactl?arch=x86_64 HTTP/1.1|Host: a|Connection: keep-alive||"
                    + "GET /health/live HTTP/1.1|Host: a|Connection: close||")
            let head = try #require(raw.range(of: "\r\n\r\n"), "\(raw.prefix(300))")
            let rest = raw[head.upperBound...].dropFirst(3_000)
            #expect(rest.hasPrefix("HTTP/1.1 200"), "\(rest.prefix(80))")
        }
    }

    /// The value of one series in a Prometheus exposition, 0 when absent.
    static func metric(_ text: String, _ series: String) -> Double {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.split(separator: " ").last ?? "") ?? 0
        }
        return 0
    }

    /// Finding 1 through OIDC: an ID token whose exp or iat is more than a day away is malformed,
    /// and nothing is recorded for it (`exp: 10000000000000` reached a query before); every refusal
    /// is counted under its reason, the future iat and nbf included; `token.exchange` names the
    /// workflow by each of GitHub's claims.
    @Test func idTokenTimesAreBoundedEveryRefusalCountedAndTheWorkflowAudited() async throws {
        let issuer = try await offPool { try OIDCIssuerStandIn() }
        try await TestWorld.run(configure: OIDCExchangeTests.configure(issuer)) { w in
            try await OIDCExchangeTests.setUp(w, issuer)
            let now = Date()
            let t = Int(now.timeIntervalSince1970)
            let recorded = "SELECT count(*)::bigint FROM oidc_exchanges"
            for (what, change) in [
                ("exp in the year ~318,857", ["exp": 10_000_000_000_000] as [String: Any]),
                ("exp two days ahead", ["exp": t + 2 * 86_400]),
                ("iat two days ahead", ["iat": t + 2 * 86_400, "nbf": t - 5]),
                ("iat two days ago", ["iat": t - 2 * 86_400]),
            ] {
                var claims = OIDCExchangeTests.github(issuer)
                claims.merge(change) { $1 }
                let reply = try await OIDCExchangeTests.exchange(w, try await issuer.mint(claims))
                #expect(reply.status == 401 && reply.problemRules == ["malformed"], "\(what): \(reply.text)")
            }
            #expect(try await OIDCExchangeTests.count(w, recorded) == 0, "nothing recorded for a refusal")

            let before = try await w.call(.get, "/metrics").text
            var future = OIDCExchangeTests.github(issuer)
            future["iat"] = t + 600
            future["nbf"] = nil
            let iat = try await OIDCExchangeTests.exchange(w, try await issuer.mint(future))
            #expect(iat.status == 401 && iat.problemRules == ["issued-in-future"], "\(iat.text)")
            future["nbf"] = t + 600
            future["iat"] = t
            let nbf = try await OIDCExchangeTests.exchange(w, try await issuer.mint(future))
            #expect(nbf.status == 401 && nbf.problemRules == ["not-yet-valid"], "\(nbf.text)")
            let after = try await w.call(.get, "/metrics").text
            for outcome in ["issued-in-future", "not-yet-valid"] {
                let series = "aasad_oidc_exchanges_total{outcome=\"\(outcome)\"}"
                #expect(Self.metric(after, series) - Self.metric(before, series) >= 1, "\(series)")
            }
            #expect(before.contains("aasad_oidc_exchanges_total{outcome=\"issued-in-future\"}"), "there from the start")

            var reusable = OIDCExchangeTests.github(issuer)
            reusable["job_workflow_ref"] = "acme/workflows/.github/workflows/release.yml@refs/heads/main"
            let issued = try await OIDCExchangeTests.exchange(w, try await issuer.mint(reusable))
            try #require(issued.status == 200, "\(issued.text)")
            let audit = try await w.call(.get, "/v1/audit?action=token.exchange", token: w.adminToken)
            let event = try #require((audit.object["items"] as? [[String: Any]])?.first, "\(audit.text)")
            let job = (event["after"] as? [String: Any])?["job"] as? [String: Any] ?? [:]
            #expect(job["workflow"] as? String == "release", "\(job)")
            #expect(job["workflowRef"] as? String == "acme/shop-ios/.github/workflows/release.yml@refs/tags/v1.2.0")
            #expect(job["jobWorkflowRef"] as? String == reusable["job_workflow_ref"] as? String, "\(job)")
        }
    }
}
