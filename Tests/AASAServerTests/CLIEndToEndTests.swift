import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import AASATestSupport
import Foundation
import Testing

/// The built `aasactl` against a real `aasad` process on PostgreSQL: every subcommand, and the
/// plan/apply cycle a release pipeline runs.
@Suite struct CLIEndToEndTests {
    static let shopApp = "ABCDE12345.com.example.shop"
    static let newsApp = "FGHIJ67890.com.example.news"

    /// A running server on a fresh database, an admin profile, and (optionally) a web root.
    static func withServer(
        environment: [String: String] = [:], _ body: @Sendable (ServerProcess, CLIRunner, String) async throws -> Void
    ) async throws {
        try await TestDatabase.shared.withDatabase { url in
            let admin = try await TestDatabase.shared.withClient(url: url) {
                try await TestWorld.makeToken($0, teamID: nil, scopes: [.admin], name: "cli admin")
            }
            let server = try ServerProcess(database: url, environment: environment)
            try await server.start()
            let cli = CLIRunner(server: server.baseURL)
            defer { try? FileManager.default.removeItem(atPath: (cli.config as NSString).deletingLastPathComponent) }
            let login = try await cli("login", "--server", server.baseURL, stdin: admin + "\n")
            try #require(login.status == 0, "\(login)")
            try await body(server, cli, admin)
        }
    }

    static func temp(_ name: String, _ text: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("aasactl-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Team `shop` with a write token logged in as profile `shop`, domain example.com granted /shop.
    static func setUpShop(_ cli: CLIRunner, server: ServerProcess, webRoot: String? = nil) async throws {
        #expect(try await cli("teams", "create", "shop").status == 0)
        #expect(try await cli("teams", "create", "news").status == 0)
        var create = ["domains", "create", "example.com", "--alias", "www.example.com"]
        if let webRoot { create += ["--web-root", webRoot] }
        #expect(try await cli.run(create).status == 0)
        #expect(try await cli("grants", "set", "example.com", "shop", "--prefix", "/shop").status == 0)
        #expect(try await cli("grants", "set", "example.com", "news", "--prefix", "/news").status == 0)
        for team in ["shop", "news"] {
            let token = try await cli("tokens", "create", "ci", "--team", team, "--scope", "write", "--quiet")
            #expect(token.status == 0)
            let login = try await cli(
                "login", "--server", server.baseURL, "--profile", team, "--no-switch", "--token",
                token.out.trimmingCharacters(in: .whitespacesAndNewlines), "-q")
            #expect(login.status == 0, "\(login)")
        }
    }

    static let manifest = """
        team: shop
        apps:
          \(shopApp):
            services: [applinks, webcredentials]
        domains:
          example.com:
            \(shopApp):
              - { "/": "/shop/admin/*", exclude: true }
              - "/": "/shop/*"
                comment: product pages
        """

    @Test func everySubcommand() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("aasactl-root-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await Self.withServer { server, cli, admin in
            // login wrote a 0600 profile; whoami reads it.
            let mode = try FileManager.default.attributesOfItem(atPath: cli.config)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            #expect(try await cli("whoami").out.contains("admin"))
            // Flags and environment take precedence over the profile.
            let env = try await cli(
                "whoami", "--output", "json", environment: ["AASA_SERVER": server.baseURL, "AASA_TOKEN": admin])
            #expect(env.out.contains("\"scopes\":[\"admin\"]") || env.out.contains("\"admin\""), "\(env)")
            let bad = try await cli("whoami", "--token", "aasa_nope")
            #expect(bad.status == 1)
            #expect(bad.err.contains("Authentication required"), "\(bad)")

            try await Self.setUpShop(cli, server: server, webRoot: root)
            let teams = try await cli("teams", "list")
            #expect(teams.out.contains("news"), "\(teams)")
            #expect(try await cli("teams", "show", "shop").out.contains("Version:"))
            #expect(try await cli("teams", "update", "shop", "--display-name", "Shop", "--if-match", "1").status == 0)
            let stale = try await cli("teams", "update", "shop", "--display-name", "Again", "--if-match", "1")
            #expect(stale.status == 1)
            #expect(stale.err.contains("412"), "\(stale)")

            // As the shop team (its profile): apps, tokens, rules.
            let shop = ["--profile", "shop"]
            #expect(try await cli.run(["apps", "create", Self.shopApp, "--service", "applinks"] + shop).status == 0)
            #expect(try await cli.run(["apps", "list"] + shop).out.contains(Self.shopApp))
            #expect(
                try await cli.run(
                    ["apps", "update", Self.shopApp, "--service", "applinks", "--service", "webcredentials"] + shop
                ).status == 0)
            #expect(try await cli.run(["apps", "show", Self.shopApp] + shop).out.contains("webcredentials"))
            let tokens = try await cli.run(["tokens", "list", "--output", "json"] + shop)
            #expect(tokens.out.contains("\"items\""))
            let readToken = try await cli.run(
                ["tokens", "create", "reader", "--scope", "read", "--output", "json"] + shop)
            let tokenID = try #require(
                (try JSONSerialization.jsonObject(with: Data(readToken.out.utf8)) as? [String: Any])
                    .flatMap { ($0["token"] as? [String: Any])?["id"] as? String })
            #expect(try await cli.run(["tokens", "revoke", tokenID] + shop).status == 0)

            #expect(
                try await cli.run(["rules", "add", "example.com", Self.shopApp, "--path", "/shop/*"] + shop).status == 0
            )
            let rulesFile = try Self.temp("rules.yaml", "- \"/\": /shop/old/*\n  exclude: true\n- \"/\": /shop/*\n")
            #expect(
                try await cli.run(["rules", "set", "example.com", Self.shopApp, "-f", rulesFile] + shop).status == 0)
            let listed = try await cli.run(["rules", "list", "example.com", Self.shopApp, "--output", "json"] + shop)
            let rules = try #require(
                (try JSONSerialization.jsonObject(with: Data(listed.out.utf8)) as? [String: Any])?["rules"]
                    as? [[String: Any]])
            try #require(rules.count == 2)
            let outside = try await cli.run(["rules", "add", "example.com", Self.shopApp, "--path", "/news/*"] + shop)
            #expect(outside.status == 1)
            #expect(outside.err.contains("outside"), "\(outside)")
            #expect(
                try await cli.run(["rules", "delete", "example.com", Self.shopApp, rules[0]["id"] as! String] + shop)
                    .status == 0)

            #expect(try await cli("order", "set", "example.com", Self.shopApp).status == 0)
            #expect(try await cli("order", "show", "example.com").out.contains("1. \(Self.shopApp)"))
            #expect(try await cli("document", "example.com").out.contains("applinks"))
            #expect(try await cli("report", "example.com").out.contains("valid"))

            // Publishing, revisions, match, diff, rollback.
            let published = try await cli.run(["publish", "example.com", "--reason", "first"] + shop)
            #expect(published.status == 0, "\(published)")
            #expect(published.out.contains("revision 1"))
            let second = try Self.temp(
                "rules2.json", #"{"rules":[{"/":"/shop/new/*","exclude":true},{"/":"/shop/*"}]}"#)
            #expect(try await cli("rules", "set", "example.com", Self.shopApp, "--file", second).status == 0)
            #expect(try await cli("publish", "example.com", "--reason", "second").status == 0)
            #expect(try await cli("revisions", "list", "example.com").out.contains("second"))
            #expect(try await cli("revisions", "show", "example.com", "2").out.contains("/shop/new/*"))
            let file = try await cli("revisions", "file", "example.com", "1")
            let served = try String(contentsOfFile: root + "/.well-known/apple-app-site-association", encoding: .utf8)
            #expect(file.out != served, "revision 2 is the one in the web root")
            let match = try await cli("match", "https://www.example.com/shop/new/x", "https://example.com/shop/a")
            #expect(match.out.contains("https://www.example.com/shop/new/x -> none"), "\(match)")
            #expect(match.out.contains("https://example.com/shop/a -> \(Self.shopApp)"), "\(match)")
            let diff = try await cli("diff", "--domain", "example.com", "--from", "1", "--to", "2")
            #expect(diff.status == 1, "documents differ")
            #expect(diff.out.contains("/shop/new/*"))
            #expect(try await cli("rollback", "example.com", "1", "--reason", "undo").status == 0)
            let rolledBack = try String(
                contentsOfFile: root + "/.well-known/apple-app-site-association", encoding: .utf8)
            #expect(rolledBack == file.out)
            let audit = try await cli("audit", "--domain", "example.com", "--limit", "50")
            #expect(audit.out.contains("publish"), "\(audit)")

            // --quiet prints nothing; usage errors exit 64; removal.
            #expect(try await cli("teams", "list", "--quiet").out.isEmpty)
            #expect(try await cli("teams", "frobnicate").status == 64)
            #expect(try await cli("grants", "show", "example.com", "news").status == 0)
            #expect(try await cli("grants", "list", "example.com").out.contains("/news"))
            #expect(try await cli("grants", "delete", "example.com", "news").status == 0)
            #expect(try await cli("teams", "delete", "news").status == 0)
            // Google's view: no assetlinks.json here, so no package and nothing to fail on.
            #expect(try await cli("google", "example.com").status == 0)
            // Targets: the domain's web root listed as one, replaced from a YAML file, a refusal printed.
            #expect(try await cli("targets", "show", "example.com").out.contains(root), "\(root)")
            let targets = root + "/../targets-\(UUID().uuidString).yaml"
            try Data("- {kind: webRoot, path: \(root)}\n".utf8).write(to: URL(fileURLWithPath: targets))
            defer { try? FileManager.default.removeItem(atPath: targets) }
            #expect(try await cli("targets", "set", "example.com", "--file", targets).out.contains("webRoot"))
            try Data("- {kind: s3, bucket: Bad_Bucket, credentials: none}\n".utf8).write(
                to: URL(fileURLWithPath: targets))
            let refused = try await cli("targets", "set", "example.com", "--file", targets)
            #expect(refused.status == 1 && refused.err.contains("/targets/0/bucket"), "\(refused)")
            #expect(try await cli("domains", "update", "example.com", "--auto-publish", "false").status == 0)
            #expect(try await cli("domains", "show", "example.com").out.contains("www.example.com"))
            #expect(try await cli("domains", "list").out.contains("example.com"))
            let inUse = try await cli("apps", "delete", Self.shopApp)
            #expect(inUse.status == 0, "\(inUse)")
            #expect(try await cli("domains", "delete", "example.com").status == 0)
        }
    }

    /// Golden URLs, guardrails and the kill switch through `aasactl`: a refusal printed with the
    /// URL it protects, `--force-reason`, `expectations check`'s exit code, suspend and resume.
    @Test func expectationsGuardrailsAndSuspension() async throws {
        try await Self.withServer { server, cli, _ in
            try await Self.setUpShop(cli, server: server)
            let shop = ["--profile", "shop"]
            #expect(try await cli.run(["apps", "create", Self.shopApp] + shop).status == 0)
            #expect(
                try await cli.run(["rules", "add", "example.com", Self.shopApp, "--path", "/shop/*"] + shop).status == 0
            )
            let add = try await cli.run(
                ["expectations", "add", "example.com", "https://example.com/shop/1", "--opens", Self.shopApp] + shop)
            #expect(add.status == 0, "\(add)")
            let list = try await cli.run(["expectations", "list", "example.com"] + shop)
            #expect(
                list.out.contains("https://example.com/shop/1") && list.out.contains("opens \(Self.shopApp)"), "\(list)"
            )
            #expect(try await cli.run(["expectations", "check", "example.com"] + shop).status == 0)

            // Removing the rule breaks the golden URL: refused, and the URL is named.
            let rules = try await cli.run(["rules", "list", "example.com", Self.shopApp, "--output", "json"] + shop)
            let ruleID = try #require(
                (try JSONParser.parse(rules.out).value.objectValue?["rules"]?.arrayValue?.first?.objectValue?["id"]?
                    .stringValue))
            let refused = try await cli.run(["rules", "delete", "example.com", Self.shopApp, ruleID] + shop)
            #expect(refused.status == 1)
            #expect(
                refused.err.contains("https://example.com/shop/1") && refused.err.contains("HTTP 409"), "\(refused)")
            let forced = try await cli(
                "rules", "delete", "example.com", Self.shopApp, ruleID, "--force-reason", "retiring the shop")
            #expect(forced.status == 0, "\(forced)")
            #expect(try await cli.run(["expectations", "check", "example.com"] + shop).status == 1)

            #expect(
                try await cli("guardrails", "set", "--protect", "/account/*", "--max-rules-per-team", "50").status == 0)
            #expect(try await cli("guardrails", "show").out.contains("/account/*"))
            let suspend = try await cli("suspend", "shop", "--host", "example.com", "--reason", "incident 42")
            #expect(suspend.status == 0, "\(suspend)")
            #expect(suspend.out.contains("example.com: revision"))
            #expect(try await cli("resume", "shop", "--host", "example.com").status == 0)
        }
    }

    /// `aasactl import` (issue 20): a plan (exit 2, nothing written), the apply, then the same
    /// import again (exit 0, no changes); the team map is YAML.
    @Test func importPlansAppliesAndIsANoOpAgain() async throws {
        try await Self.withServer { server, cli, _ in
            #expect(try await cli("teams", "create", "shop").status == 0)
            #expect(try await cli("teams", "create", "news").status == 0)
            let file = try Self.temp("aasa.json", ImportTests.mixed)
            let map = try Self.temp("map.yaml", "ABCDE12345: shop\nFGHIJ67890.com.news.app: news\nFGHIJ67890: news\n")
            let plan = try await cli("import", "example.com", "-f", file, "--team-map", map)
            #expect(plan.status == 2, "\(plan)")
            #expect(plan.out.contains("+ app ABCDE12345.com.shop.app → team shop"), "\(plan.out)")
            #expect(plan.out.contains("+ grant shop: /shop") && plan.out.contains("Proof: holds"), "\(plan.out)")
            #expect(try await cli("domains", "show", "example.com").status == 1, "a plan writes nothing")
            let manifests = FileManager.default.temporaryDirectory.appendingPathComponent("manifests-\(UUID())").path
            defer { try? FileManager.default.removeItem(atPath: manifests) }
            let applied = try await cli(
                "import", "example.com", "-f", file, "--team-map", map, "--apply", "--write-manifests", manifests)
            #expect(applied.status == 2 && applied.out.contains("Applied."), "\(applied)")
            // Each team's manifest, right after the import, plans no change.
            for team in ["shop", "news"] {
                let plan = try await cli("plan", "-f", manifests + "/\(team).yaml")
                #expect(plan.status == 0 && plan.out.contains("No changes"), "\(team): \(plan)")
            }
            // Many hosts: one failing does not stop the others; a summary table; exit 1.
            let hosts = try Self.temp("hosts.txt", "# two hosts nobody serves\none.invalid\ntwo.invalid\n")
            let many = try await cli("import", "--hosts", hosts, "--team-map", map)
            #expect(many.status == 1, "\(many)")
            #expect(
                many.out.contains("HOST") && many.out.contains("one.invalid") && many.out.contains("two.invalid")
                    && many.out.components(separatedBy: "FAILED").count == 3, "\(many)")
            let again = try await cli("import", "example.com", "-f", file, "--team-map", map, "--apply")
            #expect(again.status == 0 && again.out.contains("No changes"), "\(again)")
            let help = try await cli("import", "--help")
            #expect(help.out.contains("--team-map") && help.out.contains("Exit status"))
        }
    }

    /// Both files through `aasactl import --android-file`, and the manifests it writes (Android apps
    /// with their keys, a statement left to its manifest as `manifest`) planning no change after.
    @Test func importOfBothFilesWritesManifestsThatPlanNoChange() async throws {
        try await Self.withServer { server, cli, _ in
            #expect(try await cli("teams", "create", "shop").status == 0)
            #expect(try await cli("teams", "create", "news").status == 0)
            let aasa = try Self.temp("aasa.json", AssetLinksImportTests.aasa)
            let android = try Self.temp("assetlinks.json", AssetLinksImportTests.android)
            let map = try Self.temp("map.yaml", "ABCDE12345: shop\ncom.shop: shop\ncom.news.app: news\n")
            let plan = try await cli("import", "example.com", "-f", aasa, "--android-file", android, "--team-map", map)
            #expect(plan.status == 2, "\(plan)")
            #expect(plan.out.contains("+ app com.news.app → team news"), "\(plan.out)")
            #expect(plan.out.contains("its manifest decides") && plan.out.contains("assetlinks.json proof: holds"))
            let manifests = FileManager.default.temporaryDirectory.appendingPathComponent("manifests-\(UUID())").path
            defer { try? FileManager.default.removeItem(atPath: manifests) }
            let applied = try await cli(
                "import", "example.com", "-f", aasa, "--android-file", android, "--team-map", map, "--apply",
                "--write-manifests", manifests)
            #expect(applied.status == 2 && applied.out.contains("Applied."), "\(applied)")
            let news = try String(contentsOfFile: manifests + "/news.yaml", encoding: .utf8)
            #expect(news.contains("\"com.news.app\": manifest") && news.contains("platform: android"), "\(news)")
            for team in ["shop", "news"] {
                let plan = try await cli("plan", "-f", manifests + "/\(team).yaml")
                #expect(plan.status == 0 && plan.out.contains("No changes"), "\(team): \(plan)")
            }
            let again = try await cli(
                "import", "example.com", "-f", aasa, "--android-file", android, "--team-map", map, "--apply")
            #expect(again.status == 0 && again.out.contains("No changes"), "\(again)")
        }
    }

    @Test func planAndApply() async throws {
        try await Self.withServer { server, cli, _ in
            try await Self.setUpShop(cli, server: server)
            let manifest = try Self.temp("aasa.yaml", Self.manifest)
            #expect(try await cli("validate", "-f", manifest).status == 0)

            let plan = try await cli("plan", "-f", manifest, "--profile", "shop")
            #expect(plan.status == 2, "\(plan)")
            #expect(plan.out.contains("+ app \(Self.shopApp)"))
            #expect(plan.out.contains("https://example.com/shop/x: browser -> \(Self.shopApp)"), "\(plan)")
            let planJSON = try await cli("plan", "-f", manifest, "--profile", "shop", "--output", "json")
            #expect(planJSON.out.contains("\"stateTag\""))
            // The reviewer's form, read through the contract's types (issue 51).
            let markdown = try await cli("plan", "-f", manifest, "--profile", "shop", "--format", "markdown")
            #expect(markdown.status == 2, "\(markdown)")
            #expect(markdown.out.contains("### apple-app-site-association plan: team `shop`"), "\(markdown.out)")
            #expect(markdown.out.contains("**1 domain(s) change**, 1 app(s) created or updated."), "\(markdown.out)")
            #expect(
                markdown.out.contains("- app `\(Self.shopApp)` created (applinks,webcredentials)"), "\(markdown.out)")
            #expect(markdown.out.contains("#### example.com"), "\(markdown.out)")
            #expect(markdown.out.contains("| `\(Self.shopApp)` | 0 | "), "\(markdown.out)")
            let opened = "- `https://example.com/shop/x`: browser → `\(Self.shopApp)`"
            #expect(markdown.out.contains(opened), "\(markdown.out)")
            #expect(markdown.out.contains("  - gained `{\"/\":\"/shop/admin/*\",\"exclude\":true}`"), "\(markdown.out)")

            #expect(
                try await cli("apply", "-f", manifest, "--profile", "shop").status == 1,
                "no --yes, no terminal: refused")
            let apply = try await cli("apply", "-f", manifest, "--profile", "shop", "--yes")
            #expect(apply.status == 0, "\(apply)")
            #expect(apply.out.contains("Applied: 1 app(s) created"))
            #expect(
                apply.out.contains("1 rule set(s) changed on 1 domain(s)"),
                "the summary counts what was applied: \(apply.out)")
            // An excluded URL says that an exclude decided it, not just "none".
            let excluded = try await cli("match", "--draft", "https://example.com/shop/admin/1", "--profile", "shop")
            #expect(excluded.out.contains("-> none") && excluded.out.contains("excluded"), "\(excluded)")
            let again = try await cli("plan", "-f", manifest, "--profile", "shop")
            #expect(again.status == 0, "\(again)")
            let noop = try await cli("apply", "-f", manifest, "--profile", "shop", "--yes")
            #expect(noop.status == 0)
            #expect(noop.out.contains("No changes"))

            // A manifest that breaks a rule: refused with the file's own names; nothing changes.
            let before = try await cli("document", "example.com")
            let broken = try Self.temp(
                "broken.yaml", Self.manifest.replacingOccurrences(of: "\"/shop/*\"", with: "\"/news/*\""))
            let refused = try await cli("apply", "-f", broken, "--profile", "shop", "--yes")
            #expect(refused.status == 1)
            #expect(refused.err.contains("domains[\"example.com\"][\"\(Self.shopApp)\"][1][\"/\"]"), "\(refused)")
            #expect(try await cli("plan", "-f", broken, "--profile", "shop").status == 1)
            #expect(try await cli("document", "example.com").out == before.out)
            let unknownKey = try Self.temp(
                "typo.yaml", Self.manifest.replacingOccurrences(of: "comment:", with: "comments:"))
            let typo = try await cli("plan", "-f", unknownKey, "--profile", "shop")
            #expect(typo.status == 1)
            #expect(typo.err.contains("unknown-key"), "\(typo)")
        }
    }

    /// `drop`: the connection is lost after the server applied; `502`: a proxy answers 502 after the
    /// server applied (nginx, when a replica went away mid-answer in a rolling upgrade).
    @Test(arguments: ["drop", "502"]) func interruptedApplyIsRetriedWithTheSameKey(_ how: String) async throws {
        try await Self.withServer { server, cli, admin in
            try await Self.setUpShop(cli, server: server)
            // A proxy that forwards the apply to the server and then loses its answer. It says
            // "ready" once listening; a port another test took in the meantime makes it exit, and
            // another port is tried (asking the port for a health answer could reach that test's server).
            var port = 0
            var proxy: Process?
            for _ in 0..<5 where proxy == nil {
                port = try FreePort.pick()
                let candidate = Process()
                candidate.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                candidate.arguments = [
                    "python3", TestDatabase.repositoryRoot + "/Tests/Support/drop-first-response.py",
                    String(port), String(server.port), "manifest HTTP", how,
                ]
                let output = Pipe()
                candidate.standardOutput = output
                try candidate.launchSerialized()
                let said = try await offPool { output.fileHandleForReading.availableData }
                if String(decoding: said, as: UTF8.self).contains("ready") {
                    proxy = candidate
                } else {
                    candidate.waitUntilExit()
                }
            }
            let listening = try #require(proxy, "the proxy never found a free port")
            // SIGKILL: a child of the test runner may inherit a mask that blocks SIGTERM.
            defer { kill(listening.processIdentifier, SIGKILL) }
            let manifest = try Self.temp("aasa.yaml", Self.manifest)
            let apply = try await cli(
                "apply", "-f", manifest, "--profile", "shop", "--yes", "--server", "http://127.0.0.1:\(port)",
                "--idempotency-key", "release-42")
            #expect(apply.status == 0, "\(apply)")
            #expect(apply.err.contains("retrying"), "the first answer was lost: \(apply)")
            #expect(apply.out.contains("already applied"), "the retry got the stored answer: \(apply)")
            // Applied once: one app.create and one rules.replace event, not two of each.
            let audit = try await Curl.call("GET", server.baseURL + "/v1/audit?limit=500", token: admin)
            let text = String(decoding: audit.body, as: UTF8.self)
            #expect(text.components(separatedBy: "\"app.create\"").count - 1 == 1)
            #expect(text.components(separatedBy: "\"rules.replace\"").count - 1 == 1)
        }
    }

    @Test func twoTeamsApplyingAtOnce() async throws {
        try await Self.withServer { server, cli, _ in
            try await Self.setUpShop(cli, server: server)
            let shop = try Self.temp("shop.yaml", Self.manifest)
            let news = try Self.temp(
                "news.yaml",
                """
                team: news
                apps:
                  \(Self.newsApp):
                domains:
                  example.com:
                    \(Self.newsApp):
                      - "/": "/news/*"
                """)
            async let a = cli("apply", "-f", shop, "--profile", "shop", "--yes")
            async let b = cli("apply", "-f", news, "--profile", "news", "--yes")
            let (ra, rb) = try await (a, b)
            #expect(ra.status == 0, "\(ra)")
            #expect(rb.status == 0, "\(rb)")
            let document = try await cli("document", "example.com")
            #expect(document.out.contains(Self.shopApp) && document.out.contains(Self.newsApp), "\(document)")

            // The same team applying two different manifests at once: each succeeds, or fails
            // clearly because the other changed its apps after its plan; never a silent mix.
            let v1 = try Self.temp("v1.yaml", Self.manifest.replacingOccurrences(of: "/shop/*", with: "/shop/v1/*"))
            let v2 = try Self.temp("v2.yaml", Self.manifest.replacingOccurrences(of: "/shop/*", with: "/shop/v2/*"))
            async let c = cli("apply", "-f", v1, "--profile", "shop", "--yes")
            async let d = cli("apply", "-f", v2, "--profile", "shop", "--yes")
            let (rc, rd) = try await (c, d)
            for r in [rc, rd] where r.status != 0 {
                #expect(r.err.contains("changed on the server after the plan"), "\(r)")
            }
            #expect(rc.status == 0 || rd.status == 0)
            let final = try await cli("rules", "list", "example.com", Self.shopApp, "--output", "json")
            #expect(final.out.contains("v1") != final.out.contains("v2"), "exactly one manifest's rules: \(final.out)")
        }
    }

    /// Issue 25 through the CLI: environments, builds, a rule list on staging and prod, the
    /// promotion's plan (exit 2) and apply, and the beta build's entitlements file.
    @Test func environmentsBuildsAndPromotion() async throws {
        try await Self.withServer { server, cli, _ in
            #expect(try await cli("environments", "set", "staging", "prod").status == 0)
            let listed = try await cli("environments", "list")
            #expect(listed.out.contains("staging") && listed.out.contains("prod"), "\(listed)")
            #expect(try await cli("teams", "create", "shop").status == 0)
            #expect(try await cli("apps", "create", Self.shopApp, "--team", "shop").status == 0)
            let builds = try await cli(
                "builds", "set", Self.shopApp, "--build", "staging=\(Self.shopApp).beta", "--build",
                "prod=\(Self.shopApp)")
            #expect(builds.status == 0, "\(builds)")
            #expect(try await cli("builds", "show", Self.shopApp).out.contains("\(Self.shopApp).beta"))
            let rules = try Self.temp("rules.json", #"[{"/": "/shop/*"}]"#)
            for (host, env) in [("staging.example.com", "staging"), ("example.com", "prod")] {
                let created = try await cli("domains", "create", host, "--env", env)
                #expect(created.status == 0 && created.out.contains(env), "\(created)")
                #expect(try await cli("grants", "set", host, "shop", "--prefix", "/").status == 0)
                #expect(try await cli("rules", "set", host, Self.shopApp, "-f", rules).status == 0)
                #expect(try await cli("publish", host, "--reason", "first").status == 0)
            }
            let more = try Self.temp("more.json", #"[{"/": "/shop/*"}, {"/": "/shop2/*"}]"#)
            #expect(try await cli("rules", "set", "staging.example.com", Self.shopApp, "-f", more).status == 0)
            #expect(try await cli("publish", "staging.example.com", "--reason", "shop2").status == 0)
            let plan = try await cli("promote", "--from", "staging", "--to", "prod")
            #expect(plan.status == 2, "\(plan)")
            #expect(plan.out.contains("example.com ← staging.example.com revision 2"), "\(plan)")
            #expect(plan.out.contains(#"+ {"/":"/shop2/*"}"#), "\(plan)")
            let applied = try await cli("promote", "--from", "staging", "--to", "prod", "--apply")
            #expect(applied.status == 0 && applied.out.contains("published revision 2"), "\(applied)")
            let again = try await cli("promote", "--from", "staging", "--to", "prod")
            #expect(again.status == 0, "nothing left to promote: \(again)")
            // A manifest with the builds and the rules once, applied to staging only.
            let manifest = try Self.temp(
                "aasa.yaml",
                """
                team: shop
                apps:
                  \(Self.shopApp):
                    builds:
                      staging: \(Self.shopApp).beta
                      prod: \(Self.shopApp)
                rules:
                  \(Self.shopApp):
                    - "/": "/shop/*"
                    - "/": "/shop3/*"
                environments:
                  staging: [staging.example.com]
                  prod: [example.com]
                """)
            let staged = try await cli("plan", "-f", manifest, "--env", "staging")
            #expect(staged.status == 2 && staged.out.contains("staging.example.com (staging):"), "\(staged)")
            #expect(!staged.out.contains("\nexample.com (prod)"), "\(staged)")
            #expect(try await cli("apply", "-f", manifest, "--env", "staging", "--yes").status == 0)
            #expect(try await cli("document", "staging.example.com").out.contains("/shop3/*"))
            #expect(!(try await cli("document", "example.com").out.contains("/shop3/*")), "prod is left as it is")
            let everywhere = try await cli("plan", "-f", manifest)
            #expect(everywhere.status == 2 && everywhere.out.contains("example.com (prod):"), "\(everywhere)")
            let plist = try await cli("entitlements", Self.shopApp, "--env", "staging", "--plist")
            #expect(plist.out.contains("<string>applinks:staging.example.com</string>"), "\(plist)")
            #expect(!plist.out.contains("<string>applinks:example.com</string>"))
        }
    }

}
