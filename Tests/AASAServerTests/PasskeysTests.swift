import AASAModel
import AASAStore
import AASATestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import Testing

@testable import AASAKernel
@testable import AASAServer
@testable import AASAServices

/// Issue 52: `/.well-known/webauthn` as a third managed file, the relying party's readiness report,
/// and the origins its passkey server must accept, checked by a WebAuthn library we did not write.
@Suite struct PasskeysTests {
    static let googleExample =
        "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
    static let iosApp = "ABCDE12345.com.shop.ios"
    static let android = "com.shop.app"

    /// Google's own example of the Android origin, byte for byte.
    @Test func theAndroidOriginIsGooglesExample() {
        #expect(
            AndroidOrigin.of(fingerprint: Self.googleExample)
                == "android:apk-key-hash:FG3pg8VzBlDY7rmVLzT8ZBagg0LmHb6oigSWsj_PROU")
        #expect(AndroidOrigin.of(fingerprint: "14:6D") == nil)
        #expect(AndroidOrigin.of(fingerprint: String(repeating: "ZZ:", count: 31) + "ZZ") == nil)
    }

    /// Labels as browsers count them: the label left of the public suffix, private section included,
    /// wildcards and exceptions as the list's algorithm says.
    @Test func labelsAreCountedFromThePublicSuffixList() {
        let list = PublicSuffixList.shared
        #expect(list.registrable("shop.example.co.uk")?.label == "example")
        #expect(list.registrable("example.de")?.label == "example")
        #expect(list.registrable("a.b.example.com")?.suffix == "com")
        #expect(list.registrable("me.github.io")?.label == "me")
        #expect(list.registrable("github.io") == nil)
        #expect(list.registrable("co.uk") == nil)
        // `*.ck` with `!www.ck`: www.ck is registrable under ck; x.y.ck under y.ck.
        #expect(list.registrable("www.ck")?.suffix == "ck")
        #expect(list.registrable("x.y.ck")?.suffix == "y.ck")
        // A name no rule lists falls to the default rule `*`.
        #expect(list.registrable("shop.example.test")?.label == "example")
    }

    @Test func relatedOriginsAreHTTPSOriginsUniqueAndAtMostFiveLabels() {
        for bad in [
            "http://shop.example", "https://shop.example/", "https://shop.example/login", "https://shop.example?q",
            "https://u@shop.example", "https://shop.example:0", "https://shop.example:70000", "https://co.uk",
            "https://127.0.0.1", "shop.example", "",
        ] {
            if case .success(let origin) = RelatedOrigins.canonical(bad) { Issue.record("\(bad) was taken: \(origin)") }
        }
        #expect((try? RelatedOrigins.canonical("HTTPS://Shop.Example:443").get()) == "https://shop.example")
        #expect((try? RelatedOrigins.canonical("https://shop.example:8443").get()) == "https://shop.example:8443")
        let six = ["a", "b", "c", "d", "e", "f"].map { "https://login.\($0).example.com" }
        let labels = ["a", "b", "c", "d", "e"].map { "https://\($0).example" }
        #expect(RelatedOrigins.check(six).problems.isEmpty, "one label, example: six origins are fine")
        let checked = RelatedOrigins.check(
            labels + ["https://www.a.example", "https://f.example", "https://a.example"])
        #expect(checked.problems.map(\.rule) == ["max-labels", "unique"])
        #expect(checked.problems.map(\.index) == [6, 7])
        #expect(
            RelatedOrigins.render(["https://b.example", "https://a.example"])
                == RelatedOrigins.render(
                    ["https://a.example", "https://b.example"]))
    }

    /// shop.test with a web root, team shop granted `/` and webcredentials, blog granted `/blog`
    /// without it; an iOS and an Android app of shop, both with webcredentials.
    static func setUp(_ w: TestWorld, root: String) async throws {
        for team in ["shop", "blog"] { try #require(try await w.createTeam(team).status == 201) }
        let domain = try await w.call(
            .post, "/v1/domains", token: w.adminToken, json: ["host": "shop.test", "webRoots": [root]])
        try #require(domain.status == 201, "\(domain.text)")
        let grants: [(String, [String: Any])] = [
            ("shop", ["pathPrefixes": ["/"], "services": ["webcredentials"]]), ("blog", ["pathPrefixes": ["/blog"]]),
        ]
        for (team, grant) in grants {
            let reply = try await w.call(.put, "/v1/domains/shop.test/grants/\(team)", token: w.adminToken, json: grant)
            try #require(reply.status == 200, "\(reply.text)")
        }
        let apps: [[String: Any]] = [
            ["appID": iosApp, "services": ["webcredentials"]],
            [
                "appID": android, "platform": "android", "services": ["webcredentials"],
                "fingerprints": [googleExample, AndroidKeyTests.debug],
                "keyLabels": [googleExample: "play-signing", AndroidKeyTests.debug: "debug"],
            ],
        ]
        for app in apps {
            let reply = try await w.call(.post, "/v1/teams/shop/apps", token: w.adminToken, json: app)
            try #require(reply.status == 201, "\(reply.text)")
        }
    }

    /// A test world (`live` as `TestWorld.run` takes it) with `setUp` done on a web root of its own,
    /// removed afterwards.
    static func withShop(live: Bool = false, _ body: @Sendable (TestWorld, String) async throws -> Void)
        async throws
    {
        let root = try tempRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestWorld.run(live: live) { w in
            try await setUp(w, root: root)
            try await body(w, root)
        }
    }

    static func tempRoot() throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pk-\(UUID())").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        return root
    }

    /// The file's whole life: added by the team with webcredentials (not by one without), refused
    /// naming the field and writing nothing, published to the web root and the served path,
    /// changed, rolled back by an admin, audited.
    @Test func theWebauthnFileIsOwnedPublishedServedAndRolledBack() async throws {
        try await Self.withShop(live: true) { w, root in
            let shop = try await w.teamToken("shop", scopes: ["write"]).secret
            let blog = try await w.teamToken("blog", scopes: ["write"]).secret
            let path = "/v1/domains/shop.test/related-origins"
            let added = try await w.call(.post, path, token: shop, json: ["origin": "https://Shop.Example.co.uk"])
            #expect(added.status == 201, "\(added.text)")
            let items = added.object["items"] as? [[String: Any]] ?? []
            #expect(items.first?["origin"] as? String == "https://shop.example.co.uk")
            #expect(items.first?["team"] as? String == "shop" && items.first?["label"] as? String == "example")
            #expect(try await w.call(.post, path, token: blog, json: ["origin": "https://blog.example"]).status == 403)
            for (origin, rule) in [
                ("http://shop.example", "https-origin"), ("https://shop.example/login", "https-origin"),
                ("https://shop.example.co.uk", "unique"),
            ] {
                let reply = try await w.call(.post, path, token: shop, json: ["origin": origin])
                #expect(reply.status == 422, "\(origin): \(reply.text)")
                #expect(reply.problemFields == ["/origin"] && reply.problemRules == [rule], "\(reply.text)")
            }
            for label in ["b", "c", "d", "e"] {
                let reply = try await w.call(
                    .post, path, token: w.adminToken, json: ["origin": "https://\(label).example"])
                #expect(reply.status == 201, "\(reply.text)")
            }
            let sixth = try await w.call(.post, path, token: shop, json: ["origin": "https://f.example"])
            #expect(sixth.status == 422 && sixth.problemRules == ["max-labels"], "\(sixth.text)")
            let listed = try await w.call(.get, path, token: blog)
            #expect((listed.object["items"] as? [Any])?.count == 5 && listed.etag != nil, "\(listed.text)")
            // A stale list's tag is 412, and a team removes only its own.
            let stale = try await w.call(
                .delete, path + "?origin=https%3A%2F%2Fb.example", token: w.adminToken,
                headers: ["If-Match": "\"ro-0\""])
            #expect(stale.status == 412, "\(stale.text)")
            #expect(try await w.call(.delete, path + "?origin=https%3A%2F%2Fb.example", token: shop).status == 403)

            // Published with the other two files: the web root, the served path, a revision.
            let first = try await w.call(
                .post, "/v1/domains/shop.test/publish", token: w.adminToken, json: ["reason": "1"])
            #expect(first.status == 201, "\(first.text)")
            let files = (first.object["files"] as? [[String: Any]] ?? []).compactMap { $0["file"] as? String }
            #expect(files.contains("webauthn"), "\(files)")
            let written = try Data(contentsOf: URL(fileURLWithPath: root + "/.well-known/webauthn"))
            let expected = RelatedOrigins.render(
                [
                    "https://shop.example.co.uk", "https://b.example", "https://c.example", "https://d.example",
                    "https://e.example",
                ])
            #expect(Array(written) == expected)
            // Answered on the event loop by Host, as the other two files are.
            let port = try #require(w.client.port)
            let served = try await Curl.get("http://127.0.0.1:\(port)/.well-known/webauthn", host: "shop.test")
            #expect(served.status == 200 && served.body == expected)
            #expect(served.headers["content-type"] == "application/json")
            #expect(try await Curl.get("http://127.0.0.1:\(port)/.well-known/webauthn", host: "x.test").status == 404)

            // The console's domain page shows the file as served and the list with its owners.
            let browser = ConsoleTests.Browser(w)
            #expect(try await browser.signIn(shop).status == 303)
            let page = try await browser.get("/console/domains/shop.test")
            #expect(page.status == 200 && page.text.contains("Related origins (passkeys)"), "\(page.status)")
            #expect(page.text.contains("<td>https://shop.example.co.uk</td><td>example</td><td>shop</td>"))
            #expect(page.text.contains("&quot;origins&quot;"), "the served file on the page")

            let removed = try await w.call(
                .delete, path + "?origin=https%3A%2F%2Fshop.example.co.uk", token: shop,
                headers: ["If-Match": added.etag ?? ""])
            #expect(removed.status == 412, "the list moved since: \(removed.text)")
            let taken = try await w.call(.delete, path + "?origin=https%3A%2F%2Fshop.example.co.uk", token: shop)
            #expect(taken.status == 200, "\(taken.text)")
            let second = try await w.call(
                .post, "/v1/domains/shop.test/publish", token: w.adminToken, json: ["reason": "2"])
            #expect(second.status == 201)
            let revisions = try await w.call(.get, "/v1/domains/shop.test/webauthn/revisions", token: shop)
            #expect((revisions.object["items"] as? [[String: Any]])?.compactMap { $0["number"] as? Int } == [2, 1])
            // A team may not roll back a change to the origins it does not list; an admin may.
            let teamRollback = try await w.call(
                .post, "/v1/domains/shop.test/webauthn/revisions/1/rollback", token: shop, json: ["reason": "back"])
            #expect(teamRollback.status == 403, "\(teamRollback.text)")
            let rollback = try await w.call(
                .post, "/v1/domains/shop.test/webauthn/revisions/1/rollback", token: w.adminToken,
                json: ["reason": "back"])
            #expect(rollback.status == 201, "\(rollback.text)")
            let file = try await w.call(.get, "/v1/domains/shop.test/webauthn/revisions/3/file", token: blog)
            #expect(file.status == 200 && file.body == expected)
            #expect(try Data(contentsOf: URL(fileURLWithPath: root + "/.well-known/webauthn")) == Data(expected))
            let audit = try await w.call(.get, "/v1/audit?domain=shop.test&limit=200", token: w.adminToken)
            let actions = (audit.object["items"] as? [[String: Any]] ?? []).compactMap { $0["action"] as? String }
            for action in ["related-origin.add", "related-origin.remove", "webauthn.publish", "webauthn.rollback"] {
                #expect(actions.contains(action), "\(action) in \(actions)")
            }
        }
    }

    /// The origins export: the RP's own, its related origins, one per release key of each Android
    /// client (no debug key); a change of them is announced once (`passkeys.origins-changed`); and
    /// py_webauthn accepts a registration from the Android app with that list, and refuses one
    /// signed by a key the list does not have.
    @Test func theExportedOriginsAreWhatAWebAuthnLibraryAccepts() async throws {
        try await Self.withShop { w, root in
            let shop = try await w.teamToken("shop", scopes: ["write"]).secret
            let blog = try await w.teamToken("blog", scopes: ["write"]).secret
            #expect(
                try await w.call(
                    .put, "/v1/apps/\(Self.android)/passkeys", token: blog, json: ["relyingParties": ["shop.test"]]
                )
                .status == 404)
            let bad = try await w.call(
                .put, "/v1/apps/\(Self.android)/passkeys", token: shop,
                json: ["relyingParties": ["shop.test", "Shop.Test"]])
            #expect(bad.status == 422 && bad.problemFields == ["/relyingParties/1"], "\(bad.text)")
            for app in [Self.android, Self.iosApp] {
                let marked = try await w.call(
                    .put, "/v1/apps/\(app)/passkeys", token: shop, json: ["relyingParties": ["shop.test"]])
                #expect(marked.status == 200, "\(marked.text)")
            }
            #expect(
                try await w.call(
                    .post, "/v1/domains/shop.test/related-origins", token: shop,
                    json: ["origin": "https://shop.example"]
                ).status == 201)
            let export = try await w.call(.get, "/v1/relying-parties/shop.test/origins", token: blog)
            #expect(export.status == 200, "\(export.text)")
            let origins = (export.object["origins"] as? [[String: Any]] ?? []).compactMap { $0["origin"] as? String }
            #expect(
                origins == [
                    "https://shop.test", "https://shop.example",
                    "android:apk-key-hash:FG3pg8VzBlDY7rmVLzT8ZBagg0LmHb6oigSWsj_PROU",
                ], "\(origins)")
            let list = String(decoding: try JSONSerialization.data(withJSONObject: origins), as: UTF8.self)
            let accepted = try Self.verify(rpID: "shop.test", fingerprint: Self.googleExample, origins: list)
            #expect(accepted.status == 0, "\(accepted.text)")
            let refused = try Self.verify(rpID: "shop.test", fingerprint: AndroidKeyTests.debug, origins: list)
            #expect(refused.status == 1 && refused.text.hasPrefix("refused"), "\(refused.text)")

            // One announcement per change of the list: the marking, the origin, then a new key.
            func announcements() async throws -> Int {
                let audit = try await w.call(.get, "/v1/audit?action=passkeys.origins-changed", token: w.adminToken)
                return (audit.object["items"] as? [Any])?.count ?? -1
            }
            let before = try await announcements()
            #expect(before == 2, "the first marking, then the related origin")
            let rotated = try await w.call(
                .patch, "/v1/apps/\(Self.android)", token: shop,
                json: ["fingerprints": [Self.googleExample, AndroidKeyTests.debug, AndroidKeyTests.signing]])
            #expect(rotated.status == 200, "\(rotated.text)")
            #expect(try await announcements() == before + 1)
            #expect(
                try await w.call(
                    .put, "/v1/apps/\(Self.iosApp)/passkeys", token: shop, json: ["relyingParties": ["shop.test"]]
                ).status == 200)
            #expect(try await announcements() == before + 1, "the same list is not announced again")
        }
    }

    /// The readiness report follows each step: broken before a publish (with the fix), not yet at
    /// Apple's CDN or Google after it, ready when they serve it; a team sees its own clients only.
    @Test func theReadinessReportFollowsDraftPublishedAndCDN() async throws {
        try await Self.withShop { w, root in
            let shop = try await w.teamToken("shop", scopes: ["write"]).secret
            let blog = try await w.teamToken("blog", scopes: ["read"]).secret
            for app in [Self.android, Self.iosApp] {
                #expect(
                    try await w.call(
                        .put, "/v1/apps/\(app)/passkeys", token: shop, json: ["relyingParties": ["shop.test"]]
                    ).status == 200)
            }
            func verdicts(_ token: String) async throws -> [String: String] {
                let report = try await w.call(.get, "/v1/relying-parties/shop.test", token: token)
                try #require(report.status == 200, "\(report.text)")
                var out: [String: String] = [:]
                for client in report.object["clients"] as? [[String: Any]] ?? [] {
                    out[client["appID"] as? String ?? ""] = client["verdict"] as? String
                }
                return out
            }
            #expect(try await verdicts(shop) == [Self.iosApp: "broken", Self.android: "broken"])
            #expect(try await verdicts(blog) == [:], "blog has no clients here")
            let report = try await w.call(.get, "/v1/relying-parties/shop.test", token: shop)
            let fixes = (report.object["clients"] as? [[String: Any]] ?? []).compactMap { $0["fix"] as? String }
            #expect(fixes.allSatisfy { $0.hasPrefix("publish shop.test") }, "\(fixes)")
            #expect(
                try await w.call(.post, "/v1/domains/shop.test/publish", token: w.adminToken, json: ["reason": "p"])
                    .status == 201)
            // The only environment is production: the Android app's debug key there is the fix.
            let debugKey = try await w.call(.get, "/v1/relying-parties/shop.test", token: shop)
            #expect(try await verdicts(shop) == [Self.iosApp: "not-yet-at-cdn", Self.android: "broken"])
            #expect(debugKey.text.contains("take the debug key off com.shop.app"), "\(debugKey.text)")
            let patched = try await w.call(
                .patch, "/v1/apps/\(Self.android)", token: shop, json: ["fingerprints": [Self.googleExample]])
            #expect(patched.status == 200, "\(patched.text)")
            #expect(
                try await w.call(.post, "/v1/domains/shop.test/publish", token: w.adminToken, json: ["reason": "q"])
                    .status == 201)
            #expect(try await verdicts(shop) == [Self.iosApp: "not-yet-at-cdn", Self.android: "not-yet-at-cdn"])
            // Apple's CDN and Google's API as their monitors record them.
            try await w.withDatabase { database in
                try await database.transaction(logger: Logger(label: "test")) { session in
                    let domain = try #require(try await session.domain(host: "shop.test"))
                    let revision = try #require(try await session.currentRevision(of: domain))
                    _ = try await session.recordCDNCheck(
                        domainID: domain.id, state: "converged", revision: revision.number, sha256: revision.sha256,
                        httpStatus: 200, detail: nil)
                    _ = try await session.recordGoogleCheck(
                        domainID: domain.id, package: Self.android, state: "verified", revision: 1, detail: nil,
                        fingerprints: [Self.googleExample], before: nil)
                }
            }
            #expect(try await verdicts(shop) == [Self.iosApp: "ready", Self.android: "ready"])
            // A relying party nobody set up (no domain, no app naming it) is 404, not an empty report.
            let unknown = try await w.call(.get, "/v1/relying-parties/elsewhere.example", token: shop)
            #expect(unknown.status == 404 && unknown.text.contains("no relying party"), "\(unknown.text)")
            #expect(try await w.call(.get, "/v1/relying-parties/not a host", token: shop).status == 400)
        }
    }

    /// Before a publish: a passkey client the file lists for no passkey service is `K001` in the
    /// publish's warnings (and its preview's); the publish goes ahead.
    @Test func aClientWithoutThePasskeyServiceIsWarnedOfAtPublish() async throws {
        try await Self.withShop { w, root in
            let other = "ABCDE12345.com.shop.other"
            #expect(
                try await w.call(
                    .post, "/v1/teams/shop/apps", token: w.adminToken, json: ["appID": other, "services": ["applinks"]]
                ).status == 201)
            for app in [other, Self.iosApp] {
                #expect(
                    try await w.call(
                        .put, "/v1/apps/\(app)/passkeys", token: w.adminToken, json: ["relyingParties": ["shop.test"]]
                    ).status == 200)
            }
            func k001(_ reply: TestWorld.Reply) -> [String] {
                (reply.object["warnings"] as? [[String: Any]] ?? []).filter { $0["code"] as? String == "K001" }
                    .compactMap { $0["appID"] as? String }
            }
            let preview = try await w.call(
                .post, "/v1/domains/shop.test/publish?dryRun=true", token: w.adminToken, json: ["reason": "p"])
            #expect(k001(preview) == [other], "\(preview.text)")
            let published = try await w.call(
                .post, "/v1/domains/shop.test/publish", token: w.adminToken, json: ["reason": "p"])
            #expect(published.status == 201 && k001(published) == [other], "\(published.text)")
        }
    }

    /// An import brings `/.well-known/webauthn` in beside the AASA: the plan names its origins and
    /// writes nothing; the apply adds them (audited under `import.`) and the publish after it serves
    /// the same list; a file that today's checks refuse is 422 naming the entry, and a domain that
    /// lists an origin the file does not is 422 `proof`, nothing written either way.
    @Test func anImportBringsTheWebauthnFileIn() async throws {
        try await TestWorld.run { w in
            try #require(try await w.createTeam("shop").status == 201)
            let aasa = #"{"webcredentials":{"apps":["ABCDE12345.com.shop.ios"]}}"#
            let file = #"{"origins": ["https://shop.example.de", "https://EXAMPLE.co.uk:443"]}"#
            func body(_ webauthn: String, apply: Bool) -> [String: Any] {
                [
                    "host": "shop.test", "aasa": aasa, "webauthn": webauthn, "teamMap": ["ABCDE12345": "shop"],
                    "apply": apply, "publish": apply, "reason": "adopted",
                ]
            }
            let plan = try await w.call(.post, "/v1/imports", token: w.adminToken, json: body(file, apply: false))
            #expect(plan.status == 200, "\(plan.text)")
            #expect(
                plan.object["relatedOrigins"] as? [String] == ["https://shop.example.de", "https://example.co.uk"],
                "\(plan.text)")
            #expect(try await w.call(.get, "/v1/domains/shop.test", token: w.adminToken).status == 404)
            let bad = try await w.call(
                .post, "/v1/imports", token: w.adminToken,
                json: body(#"{"origins": ["https://a.example", "http://b.example"]}"#, apply: true))
            #expect(bad.status == 422 && bad.problemFields == ["/webauthn/origins/1"], "\(bad.text)")
            #expect(try await w.call(.get, "/v1/domains/shop.test", token: w.adminToken).status == 404)

            let applied = try await w.call(.post, "/v1/imports", token: w.adminToken, json: body(file, apply: true))
            #expect(applied.status == 200, "\(applied.text)")
            let listed = try await w.call(.get, "/v1/domains/shop.test/related-origins", token: w.adminToken)
            #expect(
                (listed.object["items"] as? [[String: Any]])?.compactMap { $0["origin"] as? String }
                    == ["https://example.co.uk", "https://shop.example.de"], "\(listed.text)")
            let current = try await w.call(.get, "/v1/domains/shop.test/webauthn/revisions/1/file", token: w.adminToken)
            #expect(
                current.body == RelatedOrigins.render(["https://shop.example.de", "https://example.co.uk"]),
                "\(current.text)")
            let audit = try await w.call(.get, "/v1/audit?action=import.related-origin.add", token: w.adminToken)
            #expect((audit.object["items"] as? [Any])?.count == 2, "\(audit.text)")
            // Imported again: nothing to write. With an origin the file lacks on the domain: refused.
            let again = try await w.call(.post, "/v1/imports", token: w.adminToken, json: body(file, apply: true))
            #expect(again.status == 200 && again.object["changed"] as? Bool == false, "\(again.text)")
            #expect(
                try await w.call(
                    .post, "/v1/domains/shop.test/related-origins", token: w.adminToken,
                    json: ["origin": "https://login.example.fr"]
                ).status == 201)
            let extra = try await w.call(.post, "/v1/imports", token: w.adminToken, json: body(file, apply: true))
            #expect(extra.status == 422 && extra.problemRules == ["proof"], "\(extra.text)")
        }
    }

    /// A manifest declares the team's related origins per domain (`aasactl plan/apply`): the plan
    /// shows them added and writes nothing; the apply adds them as the team's; a second apply
    /// changes nothing; a list without one removes it; a refused origin is 422 naming the entry;
    /// a team whose grant lacks webcredentials is refused; another team's origin stays.
    @Test func aManifestDeclaresTheTeamsRelatedOrigins() async throws {
        try await Self.withShop { w, root in
            let shop = try await w.teamToken("shop", scopes: ["write"]).secret
            let blog = try await w.teamToken("blog", scopes: ["write"]).secret
            #expect(
                try await w.call(
                    .post, "/v1/domains/shop.test/related-origins", token: w.adminToken,
                    json: ["origin": "https://admin.example.fr"]
                ).status == 201)
            func manifest(_ origins: [String]) -> [String: Any] {
                ["apps": [], "domains": [["host": "shop.test", "apps": [], "relatedOrigins": origins]]]
            }
            func origins() async throws -> [String] {
                let list = try await w.call(.get, "/v1/domains/shop.test/related-origins", token: shop)
                return (list.object["items"] as? [[String: Any]] ?? []).map {
                    "\($0["origin"] as? String ?? "") \($0["team"] as? String ?? "admin")"
                }
            }
            let wanted = ["https://shop.example.de", "https://login.example.co.uk"]
            let plan = try await w.call(
                .post, "/v1/teams/shop/manifest?dryRun=true", token: shop, json: manifest(wanted))
            #expect(plan.status == 200, "\(plan.text)")
            let planned = ((plan.object["domains"] as? [[String: Any]])?.first?["relatedOrigins"] as? [String: Any])
            #expect(planned?["added"] as? [String] == ["https://shop.example.de", "https://login.example.co.uk"])
            #expect(try await origins() == ["https://admin.example.fr admin"], "a plan writes nothing")
            let applied = try await w.call(.post, "/v1/teams/shop/manifest", token: shop, json: manifest(wanted))
            #expect(applied.status == 200 && applied.object["changed"] as? Bool == true, "\(applied.text)")
            #expect(
                try await origins() == [
                    "https://admin.example.fr admin", "https://login.example.co.uk shop",
                    "https://shop.example.de shop",
                ])
            let again = try await w.call(.post, "/v1/teams/shop/manifest", token: shop, json: manifest(wanted))
            #expect(again.object["changed"] as? Bool == false, "\(again.text)")
            let fewer = try await w.call(
                .post, "/v1/teams/shop/manifest", token: shop, json: manifest(["https://shop.example.de"]))
            #expect(fewer.status == 200, "\(fewer.text)")
            #expect(try await origins() == ["https://admin.example.fr admin", "https://shop.example.de shop"])
            let bad = try await w.call(
                .post, "/v1/teams/shop/manifest", token: shop,
                json: manifest(["https://shop.example.de", "http://plain.example"]))
            #expect(bad.status == 422 && bad.problemFields == ["/domains/0/relatedOrigins/1"], "\(bad.text)")
            let refused = try await w.call(
                .post, "/v1/teams/blog/manifest", token: blog, json: manifest(["https://blog.example"]))
            #expect(refused.status == 422 && refused.problemRules == ["forbidden"], "\(refused.text)")
            #expect(try await origins() == ["https://admin.example.fr admin", "https://shop.example.de shop"])
        }
    }

    /// A promotion leaves each domain's related origins its own (an environment's origins are not
    /// another's), and the target's three files come out of its publish together: staging's origin
    /// never reaches prod's `/.well-known/webauthn`, and prod's stays.
    @Test func aPromotionPublishesTheTargetsOwnRelatedOrigins() async throws {
        try await TestWorld.run { w in
            let (shop, roots) = try await EnvironmentTests.setUp(w)
            let prodRoot = try #require(roots["prod"])
            for (host, origin) in [
                ("staging.example.com", "https://staging.example.de"), ("example.com", "https://shop.example.de"),
            ] {
                let added = try await w.call(
                    .post, "/v1/domains/\(host)/related-origins", token: w.adminToken, json: ["origin": origin])
                #expect(added.status == 201, "\(added.text)")
            }
            let rules: [[String: Any]] = [["/": "/shop/*"], ["/": "/deals/*"]]
            #expect(
                try await w.call(
                    .put, "/v1/domains/staging.example.com/apps/ABCDE12345.com.example.app/rules", token: shop,
                    json: ["rules": rules]
                ).status == 200)
            #expect(
                try await w.call(
                    .post, "/v1/domains/staging.example.com/publish", token: w.adminToken, json: ["reason": "s"]
                ).status == 201)
            let applied = try await w.call(
                .post, "/v1/promotions", token: w.adminToken, json: ["from": "staging", "to": "prod", "apply": true])
            #expect(applied.status == 200, "\(applied.text)")
            #expect(try EnvironmentTests.file(prodRoot, "apple-app-site-association").contains("/deals/*"))
            let webauthn = try EnvironmentTests.file(prodRoot, "webauthn")
            #expect(webauthn == String(decoding: RelatedOrigins.render(["https://shop.example.de"]), as: UTF8.self))
        }
    }

    static func verify(rpID: String, fingerprint: String, origins: String) throws -> (status: Int32, text: String) {
        let result = try Spawn.run(
            "/usr/bin/env",
            ["python3", TestDatabase.repositoryRoot + "/Tests/Support/webauthn-verify.py", rpID, fingerprint, origins],
            environment: ProcessInfo.processInfo.environment)
        return (result.status, String(decoding: result.out + result.err, as: UTF8.self))
    }
}
