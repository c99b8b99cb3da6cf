import AASAStore
import AASATestSupport
import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServer
@testable import AASAServices

/// Issue 39: a CI job's OIDC ID token exchanged for a short-lived team token, against a real
/// issuer stand-in (Tests/Support/oidc-issuer.py: TLS with a test CA, discovery, JWKS with RSA
/// and EC keys, rotation). Tokens are shaped like GitHub's, with its claim names.
@Suite struct OIDCExchangeTests {
    static let audience = "aasad.example"

    static func configure(_ issuer: OIDCIssuerStandIn, refetch: Duration = .seconds(60))
        -> @Sendable (inout AppConfig) -> Void
    {
        { config in
            issuer.configure(&config)
            config.oidcKeyRefetchGap = refetch
        }
    }

    /// GitHub's claims for a job of `repository` on `ref`, valid now.
    static func github(
        _ issuer: OIDCIssuerStandIn, repository: String = "acme/shop-ios", ref: String = "refs/tags/v1.2.0",
        event: String = "push", now: Date = Date()
    ) -> [String: Any] {
        let t = Int(now.timeIntervalSince1970)
        return [
            "iss": issuer.issuer, "aud": audience, "sub": "repo:\(repository):ref:\(ref)",
            "repository": repository, "repository_owner": String(repository.split(separator: "/")[0]),
            "ref": ref, "sha": "4f0c1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b", "event_name": event,
            "workflow": "release", "workflow_ref": "\(repository)/.github/workflows/release.yml@\(ref)",
            "run_id": "9000000001", "run_attempt": "1", "actor": "octocat", "jti": UUID().uuidString,
            "iat": t, "nbf": t - 5, "exp": t + 300,
        ]
    }

    /// The github issuer, teams shop and blog, and their rules: shop's tags write, shop's pull
    /// requests read; blog's main branch writes.
    static func setUp(_ w: TestWorld, _ issuer: OIDCIssuerStandIn) async throws {
        let put = try await w.call(
            .put, "/v1/oidc/issuers/github", token: w.adminToken,
            json: ["issuer": issuer.issuer, "audience": audience])
        try #require(put.status == 200, "\(put.text)")
        for team in ["shop", "blog"] { try #require(try await w.createTeam(team).status == 201) }
        let shop = try await w.call(
            .put, "/v1/teams/shop/trust", token: w.adminToken,
            json: [
                "rules": [
                    [
                        "issuer": "github", "claims": ["repository": "acme/shop-ios", "ref": "refs/tags/v*"],
                        "scopes": ["write"],
                    ],
                    [
                        "issuer": "github", "claims": ["repository": "acme/shop-ios", "event_name": "pull_request"],
                        "scopes": ["read"],
                    ],
                ]
            ])
        try #require(shop.status == 200, "\(shop.text)")
        let blog = try await w.call(
            .put, "/v1/teams/blog/trust", token: w.adminToken,
            json: [
                "rules": [
                    [
                        "issuer": "github", "claims": ["repository": "acme/blog", "ref": "refs/heads/main"],
                        "scopes": ["write", "read"],
                    ]
                ]
            ])
        try #require(blog.status == 200, "\(blog.text)")
    }

    static func exchange(_ w: TestWorld, _ token: String, audience: String? = nil, scope: String? = nil) async throws
        -> TestWorld.Reply
    {
        var form = [
            ("grant_type", TokenExchange.grantType), ("subject_token", token),
            ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"),
        ]
        if let audience { form.append(("audience", audience)) }
        if let scope { form.append(("scope", scope)) }
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }
            .joined(separator: "&")
        return try await w.call(
            .post, "/v1/oidc/token", raw: body, headers: ["Content-Type": "application/x-www-form-urlencoded"])
    }

    static func count(_ w: TestWorld, _ sql: String) async throws -> Int {
        try await w.withDatabase { database in
            try await database.read(logger: Logger(label: "test")) {
                try await $0.first(PostgresQuery(unsafeSQL: sql), as: Int.self) ?? -1
            }
        }
    }

    @Test func aTagJobWritesAndTheAuditLeadsBackToIt() async throws {
        let issuer = try await offPool { try OIDCIssuerStandIn() }
        try await TestWorld.run(configure: Self.configure(issuer)) { w in
            try await Self.setUp(w, issuer)
            let reply = try await Self.exchange(w, try await issuer.mint(Self.github(issuer)))
            try #require(reply.status == 200, "\(reply.text)")
            #expect(reply.object["team"] as? String == "shop" && reply.object["scope"] as? String == "write")
            #expect(reply.object["token_type"] as? String == "Bearer")
            let expiresIn = try #require(reply.object["expires_in"] as? Int)
            #expect(expiresIn > 200 && expiresIn <= 300, "until the ID token's exp, not an hour")
            let token = try #require(reply.object["access_token"] as? String)
            // The token writes for shop, and only for shop.
            let app = try await w.call(
                .post, "/v1/teams/shop/apps", token: token,
                json: [
                    "appID": "com.shop.app", "platform": "android",
                    "fingerprints": [AndroidKeyTests.signing],
                ])
            #expect(app.status == 201, "\(app.text)")
            #expect(try await w.call(.get, "/v1/teams/blog/apps", token: token).status == 404)
            // token.exchange names the job; the app's creation names the exchanged token.
            let audit = try await w.call(.get, "/v1/audit?team=shop", token: w.adminToken)
            let items = audit.object["items"] as? [[String: Any]] ?? []
            let exchange = try #require(items.first { $0["action"] as? String == "token.exchange" })
            let job = (exchange["after"] as? [String: Any])?["job"] as? [String: Any] ?? [:]
            #expect(job["repository"] as? String == "acme/shop-ios" && job["runID"] as? String == "9000000001")
            #expect(job["sha"] as? String == "4f0c1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b")
            #expect(job["ref"] as? String == "refs/tags/v1.2.0" && job["issuer"] as? String == "github")
            let created = try #require(items.first { $0["action"] as? String == "app.create" })
            let actor = created["actor"] as? [String: Any] ?? [:]
            #expect(actor["tokenID"] as? String == exchange["entityID"] as? String, "\(created)")
            #expect((actor["name"] as? String)?.contains("acme/shop-ios@refs/tags/v1.2.0") == true, "\(created)")

            // An EC-signed token (ES256) of a pull request: read only.
            let pr = try await Self.exchange(
                w,
                try await issuer.mint(
                    Self.github(issuer, ref: "refs/pull/7/merge", event: "pull_request"), kid: "ec1",
                    alg: "ES256"))
            #expect(pr.status == 200 && pr.object["scope"] as? String == "read", "\(pr.text)")
            let read = try #require(pr.object["access_token"] as? String)
            #expect(try await w.call(.get, "/v1/teams/shop/apps", token: read).status == 200)
            #expect(
                try await w.call(.post, "/v1/teams/shop/apps", token: read, json: ["appID": "ABCDE12345.shop.two"])
                    .status == 403)
            // A job may ask for less than its rules give (a write rule reads too), not more.
            let asked = try await Self.exchange(w, try await issuer.mint(Self.github(issuer)), scope: "read")
            #expect(asked.object["scope"] as? String == "read", "\(asked.text)")
            let prClaims = Self.github(issuer, ref: "refs/pull/7/merge", event: "pull_request")
            let more = try await Self.exchange(w, try await issuer.mint(prClaims), scope: "write")
            #expect(more.status == 401 && more.problemRules == ["scope"], "\(more.text)")
        }
    }

    @Test func everyForgeryAndMisuseIsRefusedAndIssuesNothing() async throws {
        let issuer = try await offPool { try OIDCIssuerStandIn() }
        try await TestWorld.run(configure: Self.configure(issuer)) { w in
            try await Self.setUp(w, issuer)
            let now = Date()
            let valid = try await issuer.mint(Self.github(issuer))
            let parts = valid.split(separator: ".").map(String.init)
            var forged = Self.github(issuer)
            forged["repository"] = "acme/blog"
            let otherPayload = try await issuer.mint(forged).split(separator: ".")[1]
            var wrongAudience = Self.github(issuer)
            wrongAudience["aud"] = "someone-else"
            var wrongIssuer = Self.github(issuer)
            wrongIssuer["iss"] = "https://evil.test"
            var noJTI = Self.github(issuer)
            noJTI["jti"] = nil
            let replayed = try await issuer.mint(Self.github(issuer))
            try #require(try await Self.exchange(w, replayed).status == 200)
            let before = try await Self.count(w, "SELECT count(*)::bigint FROM tokens")
            let cases: [(String, String, String?)] = [
                ("a signature over other claims", "\(parts[0]).\(otherPayload).\(parts[2])", "signature"),
                ("alg none", try await issuer.mint(Self.github(issuer), alg: "none"), "algorithm"),
                (
                    "HS256 keyed with the public key", try await issuer.mint(Self.github(issuer), alg: "HS256-public"),
                    "algorithm"
                ),
                (
                    "a kid the issuer does not have", try await issuer.mint(Self.github(issuer), kid: "ghost"),
                    "unknown-key"
                ),
                ("expired", try await issuer.mint(Self.github(issuer, now: now.addingTimeInterval(-400))), "expired"),
                (
                    "not yet valid", try await issuer.mint(Self.github(issuer, now: now.addingTimeInterval(600))),
                    "not-yet-valid"
                ),
                ("the wrong aud", try await issuer.mint(wrongAudience), "audience"),
                ("the wrong iss", try await issuer.mint(wrongIssuer), "untrusted-issuer"),
                ("no jti", try await issuer.mint(noJTI), "malformed"),
                ("a replay", replayed, "replay"),
                (
                    "claims no rule matches", try await issuer.mint(Self.github(issuer, repository: "acme/other")),
                    "no-rule"
                ),
                ("not a JWT", "not.a.jwt", "malformed"),
            ]
            for (what, token, rule) in cases {
                let reply = try await Self.exchange(w, token)
                #expect(reply.status == 401, "\(what): \(reply.text)")
                #expect(reply.problemRules == [rule].compactMap { $0 }, "\(what): \(reply.text)")
                #expect(!reply.text.contains("BEGIN PUBLIC KEY") && !reply.text.contains(token), "\(what) leaks")
            }
            // Team A's rule used for team B's scopes: shop's claims, blog named.
            let crossTeam = try await Self.exchange(w, try await issuer.mint(Self.github(issuer)), audience: "blog")
            #expect(crossTeam.status == 401 && crossTeam.problemRules == ["no-rule"], "\(crossTeam.text)")
            // Nothing was issued or audited as a success; each refusal was counted.
            #expect(try await Self.count(w, "SELECT count(*)::bigint FROM tokens") == before)
            #expect(
                try await Self.count(w, "SELECT count(*)::bigint FROM audit_events WHERE action = 'token.exchange'")
                    == 1)
            let metrics = try await w.call(.get, "/metrics").text
            #expect(metrics.contains(#"aasad_oidc_exchanges_total{outcome="replay"} 1"#), "\(metrics)")
            #expect(metrics.contains(#"aasad_oidc_exchanges_total{outcome="algorithm"} 2"#))
            // A wrong grant type is the request's shape, not the token's: 422.
            let form =
                "grant_type=password&subject_token=x&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Ajwt"
            let grant = try await w.call(
                .post, "/v1/oidc/token", raw: form, headers: ["Content-Type": "application/x-www-form-urlencoded"])
            #expect(grant.status == 422 && grant.problemFields == ["grant_type"], "\(grant.text)")
        }
    }

    /// Within the refetch gap (a minute), a kid the cached keys lack is refused without asking the
    /// issuer again, however many arrive: a flood of made-up kids costs the issuer nothing.
    @Test func unknownKidsWithinTheRefetchGapAreRefusedWithoutFetching() async throws {
        let issuer = try await offPool { try OIDCIssuerStandIn() }
        try await TestWorld.run(configure: Self.configure(issuer, refetch: .seconds(600))) { w in
            try await Self.setUp(w, issuer)
            #expect(try await Self.exchange(w, try await issuer.mint(Self.github(issuer))).status == 200)
            #expect(issuer.jwksFetches == 1)
            try await issuer.rotate(add: [("rsa2", "RSA")])
            for _ in 0..<3 {
                let early = try await Self.exchange(w, try await issuer.mint(Self.github(issuer), kid: "rsa2"))
                #expect(early.status == 401 && early.problemRules == ["unknown-key"], "\(early.text)")
            }
            #expect(issuer.jwksFetches == 1)
            // The keys held still verify.
            #expect(try await Self.exchange(w, try await issuer.mint(Self.github(issuer))).status == 200)
        }
    }

    /// Past the refetch gap (0 here), a rotated-in key is fetched on first sight, and a key rotated
    /// out is refused once the keys are fetched again.
    @Test func aRotatedKeyIsFollowedOnceTheGapHasPassed() async throws {
        let issuer = try await offPool { try OIDCIssuerStandIn() }
        try await TestWorld.run(configure: Self.configure(issuer, refetch: .zero)) { w in
            try await Self.setUp(w, issuer)
            #expect(try await Self.exchange(w, try await issuer.mint(Self.github(issuer))).status == 200)
            try await issuer.rotate(add: [("rsa2", "RSA")], remove: ["rsa1"])
            let rotated = try await Self.exchange(w, try await issuer.mint(Self.github(issuer), kid: "rsa2"))
            #expect(rotated.status == 200, "\(rotated.text)")
            #expect(issuer.jwksFetches == 2)
            let old = try await Self.exchange(w, try await issuer.mint(Self.github(issuer), kid: "ghost"))
            #expect(old.status == 401 && old.problemRules == ["unknown-key"], "\(old.text)")
        }
    }

    /// A header listing critical extensions (RFC 7515 §4.1.11: a verifier that does not understand
    /// them must refuse) is refused `malformed`, however well signed; before, it was accepted.
    @Test func aTokenWithCriticalExtensionsIsRefused() async throws {
        let issuer = try await offPool { try OIDCIssuerStandIn() }
        try await TestWorld.run(configure: Self.configure(issuer)) { w in
            try await Self.setUp(w, issuer)
            for crit in [["exp"], ["b64"], ["https://example.com/ext"]] as [[String]] {
                let token = try await issuer.mint(Self.github(issuer), header: ["crit": crit, crit[0]: false])
                let refused = try await Self.exchange(w, token)
                #expect(refused.status == 401 && refused.problemRules == ["malformed"], "\(crit): \(refused.text)")
                #expect(refused.text.contains("crit"), "\(refused.text)")
            }
            #expect(try await Self.exchange(w, try await issuer.mint(Self.github(issuer))).status == 200)
        }
    }

    /// An issuer that is down: 503 with `keys-unavailable` and `Retry-After` (the job's token may be
    /// good), and not asked again within the refetch gap, even once it is back.
    @Test func anIssuerThatIsDownIsA503AndIsNotAskedAgainWithinTheGap() async throws {
        let issuer = try await offPool { try OIDCIssuerStandIn() }
        try await TestWorld.run(configure: Self.configure(issuer, refetch: .seconds(600))) { w in
            try await Self.setUp(w, issuer)
            let token = try await issuer.mint(Self.github(issuer))
            try await issuer.outage(true)
            let down = try await Self.exchange(w, token)
            #expect(down.status == 503 && down.problemRules == ["keys-unavailable"], "\(down.text)")
            #expect(down.headers[.retryAfter] == "600", "the refetch gap: \(down.headers)")
            try await issuer.outage(false)
            let again = try await Self.exchange(w, token)
            let wait = Int(again.headers[.retryAfter] ?? "") ?? 0
            #expect(again.status == 503 && (1...600).contains(wait), "\(again.headers)")
            #expect(issuer.refusedFetches == 1 && issuer.jwksFetches == 0, "not asked again within the gap")
            #expect(
                try await Self.count(w, "SELECT count(*)::bigint FROM audit_events WHERE action = 'token.exchange'")
                    == 0, "nothing issued")
        }
    }

    /// Past an outage the same ID token is exchanged (a 503 did not use it up); once the keys are
    /// held, they verify through the next outage, and only a kid they lack is a 503.
    @Test func anOutageUsesUpNoTokenAndHeldKeysVerifyThroughIt() async throws {
        let issuer = try await offPool { try OIDCIssuerStandIn() }
        try await TestWorld.run(configure: Self.configure(issuer, refetch: .zero)) { w in
            try await Self.setUp(w, issuer)
            let token = try await issuer.mint(Self.github(issuer))
            try await issuer.outage(true)
            let down = try await Self.exchange(w, token)
            #expect(down.status == 503 && down.headers[.retryAfter] == "1", "\(down.text)")
            try await issuer.outage(false)
            let up = try await Self.exchange(w, token)
            #expect(up.status == 200, "the same ID token, after the outage: \(up.text)")
            #expect(
                try await Self.count(w, "SELECT count(*)::bigint FROM audit_events WHERE action = 'token.exchange'")
                    == 1)
            try await issuer.outage(true)
            let held = try await Self.exchange(w, try await issuer.mint(Self.github(issuer)))
            #expect(held.status == 200, "keys held verify while the issuer is down: \(held.text)")
            let rotated = try await Self.exchange(w, try await issuer.mint(Self.github(issuer), kid: "rsa2"))
            #expect(rotated.status == 503 && rotated.problemRules == ["keys-unavailable"], "\(rotated.text)")
        }
    }

    @Test func trustRulesNameTheRepositoryAndOnlyAdminsSetThem() async throws {
        let issuer = try await offPool { try OIDCIssuerStandIn() }
        try await TestWorld.run(configure: Self.configure(issuer)) { w in
            try await Self.setUp(w, issuer)
            func put(_ rules: [[String: Any]], token: String? = nil) async throws -> TestWorld.Reply {
                try await w.call(.put, "/v1/teams/shop/trust", token: token ?? w.adminToken, json: ["rules": rules])
            }
            let owner = try await put([
                ["issuer": "github", "claims": ["repository_owner": "acme"], "scopes": ["write"]]
            ])
            #expect(owner.status == 422 && owner.problemRules == ["repository-required"], "\(owner.text)")
            let wildcard = try await put([
                ["issuer": "github", "claims": ["repository": "acme/*"], "scopes": ["write"]]
            ])
            #expect(wildcard.status == 422 && wildcard.problemRules == ["repository-exact"], "\(wildcard.text)")
            let unknown = try await put([
                ["issuer": "gitlab", "claims": ["project_path": "acme/x"], "scopes": ["read"]]
            ])
            #expect(unknown.status == 422 && unknown.problemFields == ["/rules/0/issuer"], "\(unknown.text)")
            let shop = try await w.teamToken("shop", scopes: ["write"]).secret
            let mine = try await put(
                [["issuer": "github", "claims": ["repository": "acme/shop-ios"], "scopes": ["write"]]], token: shop)
            #expect(mine.status == 403)
            // A team reads its own rules; the issuer cannot go while rules name it.
            let read = try await w.call(.get, "/v1/teams/shop/trust", token: shop)
            #expect(read.status == 200 && (read.object["rules"] as? [Any])?.count == 2, "\(read.text)")
            let delete = try await w.call(.delete, "/v1/oidc/issuers/github", token: w.adminToken)
            #expect(delete.status == 409 && delete.text.contains("shop"), "\(delete.text)")
            let bad = try await w.call(
                .put, "/v1/oidc/issuers/plain", token: w.adminToken,
                json: ["issuer": "http://issuer.test", "audience": Self.audience])
            #expect(bad.status == 422 && bad.problemRules == ["https-url"], "\(bad.text)")
        }
    }
}
