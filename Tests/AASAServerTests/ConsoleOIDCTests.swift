import AASAModel
import AASAStore
import AASATestSupport
import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASAServer

/// Issue 53: people sign in to the console through a real OpenID provider (oidc-provider-mock,
/// over TLS with a test CA, PKCE and nonce required), and their groups decide what they may do.
/// Each refusal is made as an attacker would make it, against the provider itself, and must sign
/// nobody in and leave an audit row.
@Suite struct ConsoleOIDCTests {
    static let base = "http://aasad.test"

    nonisolated(unsafe) static let people: [[String: Any]] = [
        ["sub": "alice", "email": "alice@example.com", "email_verified": true, "groups": ["shop-developers"]],
        ["sub": "root", "email": "root@example.com", "groups": ["aasa-admins", "shop-developers"]],
        ["sub": "nobody", "email": "nobody@example.com", "groups": ["visitors"]],
        ["sub": "multi", "email": "multi@example.com", "groups": ["shop-developers", "blog-readers"]],
    ]

    nonisolated(unsafe) static let mappings: [[String: Any]] = [
        ["provider": "corp", "group": "shop-developers", "team": "shop", "role": "write"],
        ["provider": "corp", "group": "blog-readers", "team": "blog", "role": "read"],
        ["provider": "corp", "group": "aasa-admins", "role": "admin"],
    ]

    /// One provider as aasad is told of it: its stand-in, the client registered there, and the
    /// client secret's file.
    struct Provider: Sendable {
        let name: String
        let idp: OIDCProviderStandIn
        let clientID: String
        let secret: String
    }

    static func provider(
        _ name: String, host: String = "idp.test", tokenMaxAge: Int = 300, people: [[String: Any]] = people
    ) async throws -> Provider {
        let idp = try OIDCProviderStandIn(host: host, tokenMaxAge: tokenMaxAge, people: people)
        let client = try await idp.register(redirectURI: "\(base)/console/sign-in/oidc/\(name)/callback")
        return Provider(name: name, idp: idp, clientID: client.id, secret: client.secret)
    }

    /// The console OIDC file naming `providers` (secrets in files beside it), and aasad trusting
    /// the first one's CA only.
    static func configure(_ providers: [Provider], tokenSignIn: Bool = true) throws
        -> @Sendable (inout AppConfig) -> Void
    {
        let config = try ConsoleOIDCConfig.load(path: try configFile(providers), environment: [:])
        let first = providers[0].idp
        let others = providers.dropFirst().map(\.idp)
        return { app in
            first.configure(&app)
            for other in others { app.fetch.resolve[other.host] = "127.0.0.1" }
            app.consoleOIDC = config
            app.consoleTokenSignIn = tokenSignIn
        }
    }

    /// The file `AASA_CONSOLE_OIDC_FILE` names, for `providers`.
    static func configFile(_ providers: [Provider]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("console-oidc-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var entries: [[String: Any]] = []
        for provider in providers {
            let secretFile = dir + "/\(provider.name).secret"
            try (provider.secret + "\n").write(toFile: secretFile, atomically: true, encoding: .utf8)
            entries.append([
                "name": provider.name, "displayName": "\(provider.name.capitalized) SSO", "issuer": provider.idp.issuer,
                "clientID": provider.clientID, "clientSecretFile": secretFile,
            ])
        }
        let file = dir + "/console-oidc.json"
        try JSONSerialization.data(withJSONObject: ["baseURL": base, "providers": entries]).write(
            to: URL(fileURLWithPath: file))
        return file
    }

    /// `provider`: the configured provider the mappings name (a mapping names one aasad has).
    static func setUp(_ w: TestWorld, provider: String = "corp") async throws -> String {
        let root = try PublishingTests.tempDir()
        _ = try await ConsoleTests.setUp(w, root: root)
        let named = mappings.map { mapping in mapping.merging(["provider": provider]) { $1 } }
        let put = try await w.call(.put, "/v1/oidc/console-mappings", token: w.adminToken, json: ["mappings": named])
        try #require(put.status == 200, "\(put.text)")
        return root
    }

    /// Starts a sign-in, lets `sub` authorize at the provider (after `tamper` changed what aasad
    /// asked for, as an attacker would), and follows the provider back to aasad.
    @discardableResult
    static func signIn(
        _ b: PersonBrowser, _ provider: Provider, as sub: String,
        tamper: (inout [URLQueryItem]) -> Void = { _ in }
    ) async throws -> (reply: TestWorld.Reply, callback: String) {
        let start = try await b.get("/console/sign-in/oidc/\(provider.name)")
        try #require(start.status == 303, "\(start.status) \(start.text)")
        let location = try #require(start.headers[.location])
        var url = try #require(URLComponents(string: location))
        var items = url.queryItems ?? []
        #expect(items.contains { $0.name == "code_challenge_method" && $0.value == "S256" })
        tamper(&items)
        url.queryItems = items
        let back = try await provider.idp.authorize(try #require(url.string), as: sub)
        try #require(back.hasPrefix(base + "/console/sign-in/oidc/\(provider.name)/callback?"), "\(back)")
        let path = String(back.dropFirst(base.count))
        return (try await b.get(path), path)
    }

    static func audit(_ w: TestWorld, _ action: String) async throws -> [(actor: String, after: String)] {
        try await w.withDatabase { db in
            try await db.read(logger: Logger(label: "test")) { session in
                try await session.all(
                    """
                    SELECT actor_name, coalesce(after::text, '') FROM audit_events WHERE action = \(action)
                    ORDER BY id
                    """, as: (String, String).self
                ).map { (actor: $0.0, after: $0.1) }
            }
        }
    }

    static func count(_ w: TestWorld, _ sql: String) async throws -> Int {
        try await w.withDatabase { db in
            try await db.read(logger: Logger(label: "test")) {
                try await $0.first(PostgresQuery(unsafeSQL: sql), as: Int.self) ?? -1
            }
        }
    }

    /// A refusal: the sign-in page with the reason and the status, no session cookie, no session
    /// row or token made, and the refusal audited with its reason.
    static func expectRefused(
        _ w: TestWorld, _ b: PersonBrowser, _ reply: TestWorld.Reply, status: Int, reason: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        #expect(reply.status == status, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(b.cookies["aasa_console"] == nil, sourceLocation: sourceLocation)
        #expect(reply.text.contains("role=\"alert\""), sourceLocation: sourceLocation)
        #expect(try await count(w, "SELECT count(*)::int FROM console_sessions") == 0, sourceLocation: sourceLocation)
        #expect(
            try await count(w, "SELECT count(*)::int FROM tokens WHERE name LIKE '% via %'") == 0,
            sourceLocation: sourceLocation)
        let refused = try await audit(w, "console.sign-in-refused")
        #expect(
            refused.contains {
                $0.after.contains("\"reason\": \"\(reason)\"") || $0.after.contains("\"reason\":\"\(reason)\"")
            },
            "\(refused)", sourceLocation: sourceLocation)
    }

    // MARK: - Signing in

    @Test func aShopDeveloperSignsInSeesShopAndPublishesAsThemselves() async throws {
        let corp = try await Self.provider("corp")
        try await TestWorld.run(configure: try Self.configure([corp])) { w in
            let root = try await Self.setUp(w)
            let b = PersonBrowser(w)
            let page = try await b.get("/console/sign-in")
            #expect(page.text.contains("/console/sign-in/oidc/corp") && page.text.contains("Corp SSO"))
            let (signedIn, _) = try await Self.signIn(b, corp, as: "alice")
            #expect(signedIn.status == 200, "\(signedIn.text)")
            #expect(signedIn.text.contains("Signed in as alice@example.com (sub alice) via corp"))
            #expect(b.cookies["aasa_console"] != nil && b.cookies["aasa_oidc"] == nil)
            let overview = try await b.get("/console")
            #expect(overview.status == 200 && overview.text.contains("example.com"))
            #expect(overview.text.contains("shop/alice@example.com (sub alice) via corp"))
            // Shop's unpublished rule is visible to shop, and shop may publish it.
            let preview = try await b.get("/console/domains/example.com/publish")
            #expect(preview.status == 200 && preview.text.contains("secret-launch"), "\(preview.text)")
            let done = try await b.post("/console/domains/example.com/publish", ["reason": "from alice's session"])
            #expect(done.status == 200, "\(done.text)")
            let file = try String(contentsOfFile: root + "/.well-known/apple-app-site-association", encoding: .utf8)
            #expect(file.contains("secret-launch"))
            let published = try await Self.audit(w, "domain.publish")
            #expect(published.last?.actor == "shop/alice@example.com (sub alice) via corp", "\(published)")
            let signIns = try await Self.audit(w, "console.sign-in")
            #expect(signIns.count == 1 && signIns[0].after.contains("shop-developers"), "\(signIns)")
            // Admin pages are not shop's.
            #expect(try await b.get("/console/teams/blog").status == 404)
            // The state was taken; the token lives until the ID token's exp (300 s here), not longer.
            #expect(try await Self.count(w, "SELECT count(*)::int FROM console_oidc_logins") == 0)
            let lifetime = try await Self.count(
                w,
                "SELECT extract(epoch FROM expires_at - created_at)::int FROM tokens WHERE name LIKE 'alice%'")
            #expect(lifetime > 240 && lifetime <= 301, "\(lifetime)")
            // Signing out ends the session, revokes the person's tokens, and goes to the provider's logout.
            let out = try await b.post("/console/sign-out", [:])
            #expect(out.status == 303)
            let logoutURL = try #require(out.headers[.location])
            let logout = try #require(URLComponents(string: logoutURL))
            #expect(logout.path == "/oauth2/end_session" && logout.host == "idp.test")
            #expect(logout.queryItems?.contains { $0.name == "id_token_hint" && ($0.value ?? "").count > 100 } == true)
            #expect(
                logout.queryItems?.contains {
                    $0.name == "post_logout_redirect_uri" && $0.value == "\(Self.base)/console/sign-in"
                } == true)
            #expect(b.cookies["aasa_console"] == nil)
            #expect(try await b.get("/console").status == 303)
            #expect(
                try await Self.count(
                    w, "SELECT count(*)::int FROM tokens WHERE name LIKE 'alice%' AND revoked_at IS NULL") == 0)
            #expect(try await Self.audit(w, "console.sign-out").count == 1)
            // The CSP lets the sign-out form's answer lead to the provider, and nowhere else.
            #expect(page.headers[.contentSecurityPolicy]?.contains("form-action 'self' https://idp.test:") == true)
        }
    }

    @Test func anAdminGroupGivesTheOrganisationAndSeveralTeamsCanBeSwitched() async throws {
        let corp = try await Self.provider("corp")
        try await TestWorld.run(configure: try Self.configure([corp])) { w in
            _ = try await Self.setUp(w)
            let admin = PersonBrowser(w)
            #expect(try await Self.signIn(admin, corp, as: "root").reply.status == 200)
            let teams = try await admin.get("/console/teams")
            #expect(teams.status == 200 && teams.text.contains("blog") && teams.text.contains("shop"))
            #expect(teams.text.contains(">root@example.com (sub root) via corp<"), "admin, no team")
            // Two teams: the session acts for the first mapped, and may switch to the other.
            let multi = PersonBrowser(w)
            #expect(try await Self.signIn(multi, corp, as: "multi").reply.status == 200)
            let overview = try await multi.get("/console")
            #expect(overview.text.contains("shop/multi@example.com") && overview.text.contains("/console/session"))
            let session = try await multi.get("/console/session")
            let found = try await w.withDatabase { db in
                try await db.read(logger: Logger(label: "test")) {
                    try await $0.first(
                        """
                        SELECT t.id FROM tokens t JOIN teams ON teams.id = t.team_id
                        WHERE teams.name = 'blog' AND t.name LIKE 'multi%'
                        """,
                        as: UUID.self)
                }
            }
            let blogToken = try #require(found)
            #expect(session.text.contains(blogToken.uuidString.lowercased()))
            let switched = try await multi.post("/console/session/team", ["token": blogToken.uuidString.lowercased()])
            #expect(switched.status == 303, "\(switched.text)")
            let after = try await multi.get("/console")
            #expect(after.text.contains("blog/multi@example.com"))
            // Another person's token is not one this session may switch to.
            let someone = try await w.teamToken("blog", scopes: ["write"]).id
            #expect(try await multi.post("/console/session/team", ["token": someone]).status == 404)
        }
    }

    @Test func aPersonInNoMappedGroupIsRefusedWithAPageThatSaysSo() async throws {
        let corp = try await Self.provider("corp")
        try await TestWorld.run(configure: try Self.configure([corp])) { w in
            _ = try await Self.setUp(w)
            let b = PersonBrowser(w)
            let (reply, _) = try await Self.signIn(b, corp, as: "nobody")
            try await Self.expectRefused(w, b, reply, status: 403, reason: "no-group")
            #expect(reply.text.contains("nobody@example.com (sub nobody) via corp is in no group"))
        }
    }

    // MARK: - Refusals

    @Test func aWrongOrReplayedStateSignsNobodyIn() async throws {
        let corp = try await Self.provider("corp")
        try await TestWorld.run(configure: try Self.configure([corp])) { w in
            _ = try await Self.setUp(w)
            let b = PersonBrowser(w)
            let (first, callback) = try await Self.signIn(b, corp, as: "alice")
            #expect(first.status == 200)
            // The same answer again, from another browser holding the same binding cookie: the state is spent.
            let replay = PersonBrowser(w)
            replay.cookies["aasa_console_oidc"] = "x"
            let again = try await replay.get(callback)
            #expect(try await Self.audit(w, "console.sign-in-refused").count == 1)
            #expect(again.status == 401 && replay.cookies["aasa_console"] == nil)
            // A state aasad never made.
            let forged = PersonBrowser(w)
            try await forged.get("/console/sign-in/oidc/corp")
            let wrong = try await forged.get("/console/sign-in/oidc/corp/callback?code=abc&state=not-a-state")
            #expect(wrong.status == 401 && forged.cookies["aasa_console"] == nil)
            // A real state, answered in a browser that did not start it (login CSRF).
            let victim = PersonBrowser(w)
            let started = try await b.get("/console/sign-in/oidc/corp")
            let url = try #require(started.headers[.location])
            let back = try await corp.idp.authorize(url, as: "root")
            let stolen = try await victim.get(String(back.dropFirst(Self.base.count)))
            #expect(stolen.status == 401 && victim.cookies["aasa_console"] == nil)
            let reasons = try await Self.audit(w, "console.sign-in-refused").map(\.after)
            #expect(reasons.count == 3 && reasons.allSatisfy { $0.contains("state") }, "\(reasons)")
            #expect(try await Self.count(w, "SELECT count(*)::int FROM console_sessions") == 1, "alice's only")
        }
    }

    @Test func aWrongNonceIsRefused() async throws {
        let corp = try await Self.provider("corp")
        try await TestWorld.run(configure: try Self.configure([corp])) { w in
            _ = try await Self.setUp(w)
            let b = PersonBrowser(w)
            let (reply, _) = try await Self.signIn(b, corp, as: "alice") { items in
                items.removeAll { $0.name == "nonce" }
                items.append(URLQueryItem(name: "nonce", value: "an-attackers-nonce"))
            }
            try await Self.expectRefused(w, b, reply, status: 401, reason: "nonce")
        }
    }

    /// A code issued to another client of the same provider, injected into aasad's sign-in: the
    /// provider will not redeem it for aasad. (The `aud`/`azp` check itself, for a provider that
    /// would, is `personClaimsAreJudgedAsOpenIDConnectSays`.)
    @Test func aCodeForAnotherClientIsRefused() async throws {
        let corp = try await Self.provider("corp")
        let other = try await corp.idp.register(redirectURI: "\(Self.base)/console/sign-in/oidc/corp/callback")
        try await TestWorld.run(configure: try Self.configure([corp])) { w in
            _ = try await Self.setUp(w)
            let b = PersonBrowser(w)
            let (reply, _) = try await Self.signIn(b, corp, as: "alice") { items in
                items.removeAll { $0.name == "client_id" }
                items.append(URLQueryItem(name: "client_id", value: other.id))
            }
            try await Self.expectRefused(w, b, reply, status: 401, reason: "code")
            #expect(reply.text.contains("invalid_grant") || reply.text.contains("invalid_client"), "\(reply.text)")
        }
    }

    @Test func anExpiredIDTokenIsRefused() async throws {
        let stale = try await Self.provider("stale", tokenMaxAge: -600)
        try await TestWorld.run(configure: try Self.configure([stale])) { w in
            _ = try await Self.setUp(w, provider: "stale")
            let b = PersonBrowser(w)
            let (reply, _) = try await Self.signIn(b, stale, as: "alice")
            try await Self.expectRefused(w, b, reply, status: 401, reason: "expired")
        }
    }

    @Test func aProviderWhoseCertificateIsUntrustedIsRefused() async throws {
        let trusted = try await Self.provider("corp")
        // Its own CA, which aasad is not told to trust.
        let rogue = try await Self.provider("rogue", host: "rogue.test")
        try await TestWorld.run(configure: try Self.configure([trusted, rogue])) { w in
            _ = try await Self.setUp(w)
            let b = PersonBrowser(w)
            let start = try await b.get("/console/sign-in/oidc/rogue")
            #expect(start.status == 503 && start.headers[.retryAfter] != nil, "\(start.status) \(start.text)")
            #expect(start.text.contains("TLS certificate is not trusted"), "\(start.text)")
            try await Self.expectRefused(w, b, start, status: 503, reason: "provider-unavailable")
        }
    }

    @Test func aCodeUsedTwiceIsRefused() async throws {
        let corp = try await Self.provider("corp")
        try await TestWorld.run(configure: try Self.configure([corp])) { w in
            _ = try await Self.setUp(w)
            let first = PersonBrowser(w)
            let (reply, callback) = try await Self.signIn(first, corp, as: "alice")
            #expect(reply.status == 200)
            let code = try #require(URLComponents(string: callback)?.queryItems?.first { $0.name == "code" }?.value)
            // A fresh sign-in (its own state and binding), answered with the spent code.
            let second = PersonBrowser(w)
            let start = try await second.get("/console/sign-in/oidc/corp")
            let location = try #require(start.headers[.location])
            let state = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "state" }?.value)
            let again = try await second.get("/console/sign-in/oidc/corp/callback?code=\(code)&state=\(state)")
            #expect(again.status == 401 && second.cookies["aasa_console"] == nil, "\(again.text)")
            let refused = try await Self.audit(w, "console.sign-in-refused")
            #expect(refused.count == 1 && refused[0].after.contains("\"code\""), "\(refused)")
            #expect(try await Self.count(w, "SELECT count(*)::int FROM console_sessions") == 1)
        }
    }

    @Test func aPKCEVerifierThatDoesNotMatchIsRefused() async throws {
        let corp = try await Self.provider("corp")
        try await TestWorld.run(configure: try Self.configure([corp])) { w in
            _ = try await Self.setUp(w)
            let b = PersonBrowser(w)
            let (reply, _) = try await Self.signIn(b, corp, as: "alice") { items in
                items.removeAll { $0.name == "code_challenge" }
                items.append(
                    URLQueryItem(
                        name: "code_challenge", value: ConsoleOIDCSignIn.challenge(binding: "an attacker's verifier")))
            }
            try await Self.expectRefused(w, b, reply, status: 401, reason: "code")
        }
    }

    /// Anyone may follow the sign-in link, and each start is a row: at 10,000 under way a start is
    /// 503 with Retry-After; once they age out (ten minutes), the next start forgets them.
    /// Nothing is stored before the provider answers, so no number of started sign-ins locks anyone
    /// out: 1,000 starts from eight clients at once (any web page can make its visitors start them),
    /// then a person signs in beside them. Before, each start stored a row, bounded at 10,000 for
    /// everyone: a flood made every provider sign-in 503.
    @Test func aFloodOfStartedSignInsLocksNobodyOut() async throws {
        let corp = try await Self.provider("corp")
        try await TestWorld.run(configure: try Self.configure([corp])) { w in
            _ = try await Self.setUp(w)
            let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        var seen: [Int] = []
                        for _ in 0..<125 {
                            seen.append(try await PersonBrowser(w).get("/console/sign-in/oidc/corp").status)
                        }
                        return seen
                    }
                }
                return try await group.reduce(into: [Int]()) { $0 += $1 }
            }
            #expect(statuses.count == 1000 && Set(statuses) == [303], "\(Set(statuses))")
            #expect(try await Self.count(w, "SELECT count(*)::int FROM console_oidc_logins") == 0, "nothing stored")
            let (reply, _) = try await Self.signIn(PersonBrowser(w), corp, as: "alice")
            #expect(reply.status == 200, "\(reply.status) \(reply.text.prefix(300))")
        }
    }

    /// The sealed sign-in is the browser's, unreadable and unforgeable: altered, sealed by another
    /// installation, for another provider, or older than ten minutes, it is refused `state`.
    @Test func aSealedSignInThatWasAlteredOrIsOldIsRefused() async throws {
        let corp = try await Self.provider("corp")
        let other = try await Self.provider("other", host: "other.test")
        try await TestWorld.run(configure: try Self.configure([corp, other])) { w in
            _ = try await Self.setUp(w)
            let key = try await w.withDatabase { db in
                try await db.read(logger: Logger(label: "test")) { session in
                    try await session.consoleSignInKey(candidate: Array(repeating: 7, count: 32))
                }
            }
            let seal = ConsoleOIDCLoginSeal(keyBytes: key)
            let elsewhere = ConsoleOIDCLoginSeal(keyBytes: (0..<32).map { _ in UInt8.random(in: 0...255) })
            let now = Int64(Date().timeIntervalSince1970)
            func login(_ provider: String, started: Int64) -> ConsoleOIDCLogin {
                ConsoleOIDCLogin(provider: provider, state: "s-\(UUID())", nonce: "n", binding: "b", started: started)
            }
            let fresh = login("corp", started: now)
            var altered = Array(try seal.seal(fresh))
            altered[20] = altered[20] == "A" ? "B" : "A"
            let otherProviders = login("other", started: now)
            let old = login("corp", started: now - 660)
            // Each with the state its sign-in holds: only the seal, the provider or the age is wrong.
            let cases: [(what: String, cookie: String, state: String)] = [
                ("altered", String(altered), fresh.state),
                ("sealed elsewhere", try elsewhere.seal(fresh), fresh.state),
                ("another provider's", try seal.seal(otherProviders), otherProviders.state),
                ("eleven minutes old", try seal.seal(old), old.state),
            ]
            for (what, cookie, state) in cases {
                let b = PersonBrowser(w)
                b.cookies["aasa_console_oidc"] = cookie
                let reply = try await b.get("/console/sign-in/oidc/corp/callback?code=abc&state=\(state)")
                #expect(reply.status == 401 && b.cookies["aasa_console"] == nil, "\(what): \(reply.status)")
            }
            // The same sealed sign-in, untouched, gets past the seal (refused at the made-up code).
            let b = PersonBrowser(w)
            b.cookies["aasa_console_oidc"] = try seal.seal(fresh)
            let past = try await b.get("/console/sign-in/oidc/corp/callback?code=abc&state=\(fresh.state)")
            #expect(past.status == 401)
            let reasons = try await Self.audit(w, "console.sign-in-refused").map(\.after)
            #expect(reasons.count == 5 && reasons.prefix(4).allSatisfy { $0.contains("\"state\"") }, "\(reasons)")
            #expect(reasons.last?.contains("\"state\"") == false, "the untouched one passed the seal: \(reasons)")
        }
    }

    // MARK: - Groups change

    /// A group removed at the provider counts once the person's tokens expire, which they do when
    /// the ID token does: then the console sends them to sign in again, and the provider's answer
    /// (no group now) is refused. The expiry is moved to now instead of waited for.
    @Test func aGroupRemovedAtTheProviderCountsByTheIDTokensExpiry() async throws {
        let corp = try await Self.provider("corp")
        try await TestWorld.run(configure: try Self.configure([corp])) { w in
            _ = try await Self.setUp(w)
            let b = PersonBrowser(w)
            #expect(try await Self.signIn(b, corp, as: "alice").reply.status == 200)
            try await corp.idp.setUser("alice", ["email": "alice@example.com", "groups": ["former-shop"]])
            #expect(try await b.get("/console").status == 200, "until the bound, the session stands")
            _ = try await Self.count(
                w, "UPDATE tokens SET expires_at = now() WHERE name LIKE 'alice%' RETURNING 1")
            let gone = try await b.get("/console")
            #expect(gone.status == 303 && gone.headers[.location] == "/console/sign-in")
            let (again, _) = try await Self.signIn(b, corp, as: "alice")
            try await Self.expectRefusedAfterSignOut(w, b, again)
        }
    }

    static func expectRefusedAfterSignOut(_ w: TestWorld, _ b: PersonBrowser, _ reply: TestWorld.Reply) async throws {
        #expect(reply.status == 403 && reply.text.contains("is in no group"), "\(reply.text)")
        #expect(
            try await count(w, "SELECT count(*)::int FROM tokens WHERE name LIKE 'alice%' AND expires_at > now()") == 0)
    }

    // MARK: - Secrets

    /// A running aasad at trace level: after a sign-in, a refused sign-in and a sign-out, neither
    /// its log, nor the audit trail, nor any page it served holds the client secret, the code, the
    /// state, the nonce or the ID token.
    @Test func noSecretCodeOrTokenReachesALogAnAuditRowOrAPage() async throws {
        let corp = try await Self.provider("corp")
        try await TestDatabase.shared.withDatabase { url in
            let admin = try await TestDatabase.shared.withClient(url: url) {
                try await TestWorld.makeToken($0, teamID: nil, scopes: [.admin], name: "log test")
            }
            let file = try Self.configFile([corp])
            let server = try ServerProcess(
                database: url, logLevel: "trace",
                environment: [
                    "AASA_CONSOLE_OIDC_FILE": file, "AASA_PROBE_CA_FILE": corp.idp.dir + "/ca.pem",
                    "AASA_PROBE_RESOLVE": "idp.test=127.0.0.1",
                ])
            try await server.start()
            #expect(
                try await Curl.call("POST", server.baseURL + "/v1/teams", token: admin, json: #"{"name":"shop"}"#)
                    .status == 201)
            let mappings = #"{"mappings":[{"provider":"corp","group":"shop-developers","team":"shop","role":"write"}]}"#
            #expect(
                try await Curl.call("PUT", server.baseURL + "/v1/oidc/console-mappings", token: admin, json: mappings)
                    .status == 200)
            let b = PersonBrowser(baseURL: server.baseURL)
            var pages: [String] = []
            let start = try await b.get("/console/sign-in/oidc/corp")
            let location = try #require(start.headers[.location])
            let asked = try #require(URLComponents(string: location)?.queryItems)
            let back = try await corp.idp.authorize(location, as: "alice")
            let callback = try await b.get(String(back.dropFirst(Self.base.count)))
            pages.append(callback.text)
            #expect(callback.status == 200, "\(callback.text)")
            let idToken = try await TestDatabase.shared.withClient(url: url) { db in
                try await db.read(logger: Logger(label: "test")) {
                    try await $0.first("SELECT id_token FROM console_sessions", as: String.self)
                }
            }
            pages.append(try await b.get("/console").text)
            pages.append(try await b.get("/console/audit").text)
            pages.append(try await b.get("/console/session").text)
            // A replay of the same answer: refused, and its page and audit row say so without the code.
            let replayed = try await PersonBrowser(baseURL: server.baseURL).get(String(back.dropFirst(Self.base.count)))
            #expect(replayed.status == 401)
            pages.append(replayed.text)
            #expect(try await b.post("/console/sign-out", [:]).status == 303)
            #expect(try await server.waitForLog(["console sign-in refused"]))
            let code = try #require(URLComponents(string: back)?.queryItems?.first { $0.name == "code" }?.value)
            let secrets: [(String, String)] =
                [
                    ("client secret", corp.secret), ("code", code), ("ID token", try #require(idToken)),
                ]
                + ["state", "nonce"].map { name in (name, asked.first { $0.name == name }?.value ?? "-") }
            let audit = try await TestDatabase.shared.withClient(url: url) { db in
                try await db.read(logger: Logger(label: "test")) {
                    try await $0.all(
                        """
                        SELECT actor_name || ' ' || coalesce(after::text, '') || coalesce(before::text, '')
                        FROM audit_events
                        """,
                        as: String.self)
                }
            }.joined(separator: "\n")
            #expect(audit.contains("alice@example.com (sub alice) via corp"))
            let log = server.output
            #expect(log.contains("console sign-in refused"))
            for (name, secret) in secrets {
                #expect(!log.contains(secret), "the \(name) is in aasad's log")
                #expect(!audit.contains(secret), "the \(name) is in the audit trail")
                #expect(!pages.contains { $0.contains(secret) }, "the \(name) is on a page")
            }
        }
    }

    // MARK: - Mappings and settings

    @Test func mappingsAreAdminsAndCheckedField() async throws {
        let corp = try await Self.provider("corp")
        try await TestWorld.run(configure: try Self.configure([corp])) { w in
            try await w.createTeam("shop")
            let shop = try await w.teamToken("shop", scopes: ["write"]).secret
            let empty = try await w.call(.get, "/v1/oidc/console-mappings", token: w.adminToken)
            #expect(empty.status == 200 && (empty.object["mappings"] as? [Any])?.isEmpty == true)
            let emptyTag = try #require(empty.etag)
            #expect(try await w.call(.get, "/v1/oidc/console-mappings", token: shop).status == 403)
            let bad = try await w.call(
                .put, "/v1/oidc/console-mappings", token: w.adminToken,
                json: [
                    "mappings": [
                        ["provider": "corp", "group": "a", "team": "shop", "role": "admin"],
                        ["provider": "corp", "group": "b", "role": "write"],
                        ["provider": "corp", "group": "c", "team": "nope", "role": "read"],
                        ["provider": "Corp!", "group": "d", "team": "shop", "role": "read"],
                    ]
                ])
            #expect(bad.status == 422, "\(bad.text)")
            #expect(
                Set(bad.problemFields) == ["/mappings/0/team", "/mappings/1/team", "/mappings/3/provider"],
                "\(bad.text)")
            let unknownTeam = try await w.call(
                .put, "/v1/oidc/console-mappings", token: w.adminToken,
                json: ["mappings": [["provider": "corp", "group": "c", "team": "nope", "role": "read"]]])
            #expect(unknownTeam.status == 422 && unknownTeam.problemRules == ["exists"], "\(unknownTeam.text)")
            let put = try await w.call(
                .put, "/v1/oidc/console-mappings", token: w.adminToken,
                json: [
                    "mappings": [["provider": "corp", "group": "shop-developers", "team": "shop", "role": "write"]]
                ],
                headers: ["If-Match": emptyTag])
            #expect(put.status == 200 && put.etag != empty.etag, "\(put.text)")
            let stale = try await w.call(
                .put, "/v1/oidc/console-mappings", token: w.adminToken, json: ["mappings": []],
                headers: ["If-Match": emptyTag])
            #expect(stale.status == 412)
            let audited = try await Self.audit(w, "console.mappings")
            #expect(audited.count == 1 && audited[0].after.contains("shop-developers"))
        }
    }

    @Test func tokenSignInCanBeTurnedOff() async throws {
        let corp = try await Self.provider("corp")
        try await TestWorld.run(configure: try Self.configure([corp], tokenSignIn: false)) { w in
            let b = PersonBrowser(w)
            let page = try await b.get("/console/sign-in")
            #expect(page.status == 200 && !page.text.contains("name=\"token\"") && page.text.contains("Corp SSO"))
            let refused = try await b.post("/console/sign-in", ["token": w.adminToken])
            #expect(refused.status == 403 && b.cookies["aasa_console"] == nil)
        }
    }

    @Test func personClaimsAreJudgedAsOpenIDConnectSays() throws {
        let now = Date()
        let t = now.timeIntervalSince1970
        func claims(_ extra: [String: Any]) throws -> PersonClaims {
            var base: [String: Any] = [
                "iss": "https://idp.test", "aud": "aasad", "sub": "alice", "nonce": "n", "iat": t, "exp": t + 300,
            ]
            base.merge(extra) { $1 }
            return try JSONDecoder().decode(PersonClaims.self, from: JSONSerialization.data(withJSONObject: base))
        }
        func reason(_ extra: [String: Any]) throws -> ExchangeRefusal.Reason? {
            do {
                try PersonClaimCheck.check(
                    try claims(extra), issuer: "https://idp.test", clientID: "aasad", nonceMatches: { $0 == "n" },
                    now: now)
                return nil
            } catch let refusal as ExchangeRefusal { return refusal.reason }
        }
        #expect(try reason([:]) == nil)
        #expect(try reason(["aud": "another-client"]) == .audience)
        #expect(try reason(["aud": ["aasad", "another-client"]]) == .audience, "several audiences need azp")
        #expect(try reason(["aud": ["aasad", "another-client"], "azp": "aasad"]) == nil)
        #expect(try reason(["azp": "another-client"]) == .audience)
        #expect(try reason(["iss": "https://elsewhere.test"]) == .untrustedIssuer)
        #expect(try reason(["exp": t - 120]) == .expired)
        #expect(try reason(["exp": t + 10_000_000_000]) == .malformed)
        #expect(try reason(["nonce": "m"]) == .nonce)
        #expect(try reason(["iat": t + 600]) == .issuedInFuture)
        #expect(
            try claims(["realm_access": ["roles": ["a", "b"]]]).groups(at: ["realm_access", "roles"]) == ["a", "b"])
        #expect(try claims(["groups": "one"]).groups(at: ["groups"]) == ["one"])
        #expect(try claims(["groups": [1, "two"]]).groups(at: ["groups"]) == ["two"])
    }
}
