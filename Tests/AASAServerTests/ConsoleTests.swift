import AASAKernel
import AASAOutbound
import AASARules
import AASAServer
import AASAServices
import AASAStore
import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import Testing

/// Issue 21 over HTTP against PostgreSQL: the console's sessions, CSRF, what each token sees,
/// and escaping. (The same scenarios in a real browser, with axe: `scripts/console-test`.)
@Suite struct ConsoleTests {
    /// A browser as far as the console cares (`PersonBrowser`: its cookies, the CSRF token of the
    /// last page).
    typealias Browser = PersonBrowser

    /// Two teams on example.com: shop (write token, rules under /shop), blog (read token).
    static func setUp(_ w: TestWorld, root: String) async throws -> (shop: String, blogRead: String) {
        try await w.createTeam("shop")
        try await w.createTeam("blog")
        let shop = try await w.teamToken("shop", scopes: ["write"]).secret
        let blogWrite = try await w.teamToken("blog", scopes: ["write"]).secret
        let blogRead = try await w.teamToken("blog", scopes: ["read"]).secret
        try #require(
            try await w.call(
                .post, "/v1/domains", token: w.adminToken, json: ["host": "example.com", "webRoots": [root]]
            )
            .status == 201)
        for (team, prefix) in [("shop", "/shop"), ("blog", "/blog")] {
            try #require(
                try await w.call(
                    .put, "/v1/domains/example.com/grants/\(team)", token: w.adminToken,
                    json: ["pathPrefixes": [prefix]]
                ).status == 200)
        }
        try #require(
            try await w.call(.post, "/v1/teams/shop/apps", token: shop, json: ["appID": "ABCDE12345.com.example.shop"])
                .status == 201)
        try #require(
            try await w.call(
                .post, "/v1/teams/blog/apps", token: blogWrite, json: ["appID": "ABCDE12345.com.example.blog"]
            ).status == 201)
        try #require(
            try await w.call(
                .put, "/v1/domains/example.com/apps/ABCDE12345.com.example.blog/rules", token: blogWrite,
                json: ["rules": [["/": "/blog/*"]]]
            ).status == 200)
        let published = try await w.call(
            .post, "/v1/domains/example.com/publish", token: w.adminToken, json: ["reason": "first"])
        try #require(published.status == 201, "\(published.text)")
        // Unpublished: only shop and admins may see it.
        try #require(
            try await w.call(
                .put, "/v1/domains/example.com/apps/ABCDE12345.com.example.shop/rules", token: shop,
                json: ["rules": [["/": "/shop/secret-launch/*", "comment": "<script>alert('c')</script>"]]]
            ).status == 200)
        return (shop, blogRead)
    }

    @Test func signInMakesAHashedSessionAndSignOutEndsIt() async throws {
        let root = try PublishingTests.tempDir()
        try await TestWorld.run { w in
            let b = Browser(w)
            let anonymous = try await b.get("/console")
            #expect(anonymous.status == 303 && anonymous.headers[.location] == "/console/sign-in")
            let signedIn = try await b.signIn(w.adminToken)
            #expect(signedIn.status == 303, "\(signedIn.text)")
            let cookie = try #require(signedIn.headers[.setCookie])
            #expect(
                cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/console"))
            #expect(!cookie.contains("Secure"), "plain HTTP: no Secure")
            #expect(!(signedIn.headers[.location] ?? "").contains(w.adminToken), "the token is never in a URL")
            let id = try #require(b.cookies["aasa_console"])
            let stored = try await w.withDatabase { db in
                try await db.read(logger: .init(label: "t")) { s in
                    try await s.first("SELECT encode(id_hash, 'hex') FROM console_sessions", as: String.self)
                }
            }
            #expect(stored != nil && stored != id && !(stored ?? "").contains(id), "stored as its hash")
            let overview = try await b.get("/console")
            #expect(overview.status == 200)
            #expect(overview.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'self'") == true)
            #expect(!overview.text.contains(w.adminToken))
            #expect(try await b.post("/console/sign-out", [:]).status == 303)
            #expect(try await b.get("/console").status == 303, "signed out")
            // Behind TLS (the proxy says so), the cookie is Secure.
            let tls = try await w.call(.get, "/console/sign-in", headers: ["X-Forwarded-Proto": "https"])
            #expect(tls.headers[.setCookie]?.contains("; Secure") == true)
            _ = root
        }
    }

    @Test func aPostWithoutTheCSRFTokenIs403AndChangesNothing() async throws {
        let root = try PublishingTests.tempDir()
        try await TestWorld.run { w in
            _ = try await Self.setUp(w, root: root)
            let b = Browser(w)
            _ = try await b.signIn(w.adminToken)
            let forged = try await b.post("/console/domains/example.com/publish", ["reason": "csrf"], csrf: false)
            #expect(forged.status == 403, "\(forged.text)")
            #expect(forged.text.contains("CSRF"))
            let wrong = try await b.post(
                "/console/domains/example.com/publish", ["reason": "x", "csrf": "00"], csrf: false)
            #expect(wrong.status == 403)
            let revisions = try await w.call(.get, "/v1/domains/example.com/revisions", token: w.adminToken)
            #expect((revisions.object["items"] as? [Any])?.count == 1, "no revision was made")
            // The sign-in form is protected too: a cross-site post without its cookie is refused.
            let bare = try await w.call(
                .post, "/console/sign-in", raw: "token=\(w.adminToken)",
                headers: ["Content-Type": "application/x-www-form-urlencoded"])
            #expect(bare.status == 403 && bare.headers[.setCookie]?.hasPrefix("aasa_console=") != true)
        }
    }

    @Test func publishingFromTheConsoleWritesTheWebRootWithTheReason() async throws {
        let root = try PublishingTests.tempDir()
        try await TestWorld.run { w in
            _ = try await Self.setUp(w, root: root)
            let b = Browser(w)
            _ = try await b.signIn(w.adminToken)
            let preview = try await b.get("/console/domains/example.com/publish")
            #expect(preview.status == 200 && preview.text.contains("+ ") && preview.text.contains("secret-launch"))
            let done = try await b.post(
                "/console/domains/example.com/publish", ["reason": "launch <script>alert('r')</script>"])
            #expect(done.status == 200, "\(done.text)")
            #expect(done.text.contains("Revision 2") && done.text.contains("&lt;script&gt;alert"))
            #expect(!done.text.contains("<script>alert"))
            let file = try String(
                contentsOfFile: root + "/.well-known/apple-app-site-association", encoding: .utf8)
            #expect(file.contains("secret-launch"))
        }
    }

    @Test func eachTokenSeesWhatTheAPIShowsIt() async throws {
        let root = try PublishingTests.tempDir()
        try await TestWorld.run { w in
            let (shop, blogRead) = try await Self.setUp(w, root: root)
            let blog = Browser(w)
            _ = try await blog.signIn(blogRead)
            let page = try await blog.get("/console/domains/example.com")
            #expect(page.status == 200, "\(page.text)")
            #expect(!page.text.contains("secret-launch"), "blog does not see shop's unpublished rule")
            let publish = try await blog.get("/console/domains/example.com/publish")
            #expect(!publish.text.contains("<button type=\"submit\">Publish</button>"), "a read token has no button")
            let forged = try await blog.post("/console/domains/example.com/publish", ["reason": "forged"])
            #expect(forged.status == 403, "\(forged.text)")
            let rollback = try await blog.post("/console/domains/example.com/revisions/1/rollback", ["reason": "x"])
            #expect(rollback.status == 403, "\(rollback.text)")

            let shopBrowser = Browser(w)
            _ = try await shopBrowser.signIn(shop)
            let own = try await shopBrowser.get("/console/domains/example.com")
            #expect(own.text.contains("secret-launch"))
            #expect(own.text.contains("&lt;script&gt;alert(&#39;c&#39;)") || own.text.contains("&lt;script&gt;alert("))
            #expect(!own.text.contains("<script>alert"), "a comment is text")
            let ownTeam = try await shopBrowser.get("/console/teams/shop")
            #expect(
                ownTeam.text.contains("<h2>Grants</h2>") && ownTeam.text.contains(">example.com</a>"), "\(ownTeam.text)"
            )
            let overview = try await shopBrowser.get("/console/")
            #expect(overview.text.contains("Last probe") && overview.text.contains(">never</td>"), "\(overview.text)")
            let teams = try await shopBrowser.get("/console/teams/blog")
            #expect(teams.status == 403 || teams.status == 404, "\(teams.status)")
            let audit = try await shopBrowser.get("/console/audit?team=blog")
            #expect(audit.status == 403, "a team reads its own audit only, as in the API")
        }
    }

    @Test func revokingTheTokenEndsItsSessions() async throws {
        try await TestWorld.run { w in
            try await w.createTeam("shop")
            let (secret, id) = try await w.teamToken("shop", scopes: ["write"])
            let b = Browser(w)
            #expect(try await b.signIn(secret).status == 303)
            #expect(try await b.get("/console").status == 200)
            let revoked = try await w.call(.delete, "/v1/teams/shop/tokens/\(id)", token: w.adminToken)
            #expect(revoked.status == 204 || revoked.status == 200, "\(revoked.text)")
            let after = try await b.get("/console")
            #expect(after.status == 303 && after.headers[.location] == "/console/sign-in")
            let left = try await w.withDatabase { db in
                try await db.read(logger: .init(label: "t")) { s in
                    try await s.first("SELECT count(*)::int FROM console_sessions", as: Int.self)
                }
            }
            #expect(left == 0, "the dead session is deleted")
        }
    }

    @Test func failedSignInsAreAuditedAndLimited() async throws {
        // The limit's minute is held still: the seven attempts must fall in it however slow the machine.
        let frozen = ContinuousClock.now
        let configure: @Sendable (inout AppConfig) -> Void = { $0.signInClock = { frozen } }
        try await TestWorld.run(configure: configure) { w in
            let b = Browser(w)
            var statuses: [Int] = []
            for _ in 0..<6 {
                _ = try await b.get("/console/sign-in")
                statuses.append(try await b.post("/console/sign-in", ["token": "aasa_wrong"]).status)
            }
            #expect(statuses == [401, 401, 401, 401, 401, 429], "\(statuses)")
            _ = try await b.get("/console/sign-in")
            let limited = try await b.post("/console/sign-in", ["token": "aasa_wrong"])
            #expect(limited.status == 429 && limited.headers[.retryAfter] != nil, "failures wait")
            // Issue 41: only failures are throttled; a valid token always signs in.
            _ = try await b.get("/console/sign-in")
            #expect(try await b.post("/console/sign-in", ["token": w.adminToken]).status == 303)
            let audit = try await w.call(.get, "/v1/audit?action=console.sign-in-failed", token: w.adminToken)
            #expect((audit.object["items"] as? [Any])?.count == 5, "\(audit.text)")
            #expect(!audit.text.contains("aasa_wrong"), "what was typed is never stored")
        }
    }

    @Test func theConsoleCanBeTurnedOff() async throws {
        let off: @Sendable (inout AppConfig) -> Void = { $0.console = false }
        try await TestWorld.run(configure: off) { w in
            let off = try await w.call(.get, "/console/sign-in")
            #expect(off.status == 404)
        }
    }
}
