import AASATestSupport
import Foundation
import HTTPTypes
import Testing

@testable import AASAServer

/// What a platform engineer met on a first day from the README alone (issue 63), each done as they
/// did it: the mistake is refused or the answer names its cause and its fix.
@Suite struct FirstDayTests {
    /// A mapping for a provider this aasad does not have (the example file's name, a typo) is 422
    /// naming the provider and the configured ones; before, it was accepted and matched nobody.
    @Test func aMappingForAProviderThisServerLacksIsRefused() async throws {
        let corp = try await ConsoleOIDCTests.provider("corp")
        try await TestWorld.run(configure: try ConsoleOIDCTests.configure([corp])) { w in
            try #require(try await w.createTeam("shop").status == 201)
            let refused = try await w.call(
                .put, "/v1/oidc/console-mappings", token: w.adminToken,
                json: [
                    "mappings": [
                        ["provider": "corp", "group": "shop-developers", "team": "shop", "role": "write"],
                        ["provider": "demo", "group": "aasa-admins", "role": "admin"],
                    ]
                ])
            #expect(refused.status == 422 && refused.problemFields == ["/mappings/1/provider"], "\(refused.text)")
            #expect(refused.text.contains("demo") && refused.text.contains("corp"), "\(refused.text)")
            let mappings = try await w.call(.get, "/v1/oidc/console-mappings", token: w.adminToken)
            #expect((mappings.object["mappings"] as? [Any])?.isEmpty == true, "nothing was written")
        }
        // Without any provider, every mapping is refused, and the answer says where providers come from.
        try await TestWorld.run { w in
            let refused = try await w.call(
                .put, "/v1/oidc/console-mappings", token: w.adminToken,
                json: ["mappings": [["provider": "corp", "group": "admins", "role": "admin"]]])
            #expect(refused.status == 422 && refused.text.contains("AASA_CONSOLE_OIDC_FILE"), "\(refused.text)")
        }
    }

    /// The examples agree: every provider the example mappings name is one the example file configures.
    @Test func theExampleMappingsNameTheExampleProvider() throws {
        let root = TestDatabase.repositoryRoot + "/deploy/console-oidc/"
        let config = try String(contentsOfFile: root + "console-oidc.example.json", encoding: .utf8)
        let mappings = try String(contentsOfFile: root + "mappings.example.yaml", encoding: .utf8)
        let named = Set(
            mappings.split(separator: "\n").compactMap { line -> String? in
                guard let range = line.range(of: "provider: ") else { return nil }
                return line[range.upperBound...].split(separator: ",").first.map(String.init)
            })
        #expect(!named.isEmpty)
        for provider in named { #expect(config.contains("\"name\": \"\(provider)\""), "\(provider)") }
    }

    /// A team's publishes are in its own audit trail (the rows name the team).
    @Test func aTeamSeesItsOwnPublishesInItsAuditTrail() async throws {
        let root = try PublishingTests.tempDir()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestWorld.run { w in
            let token = try await PublishingTests.setUp(w, webRoots: [root])
            let published = try await w.call(
                .post, "/v1/domains/example.com/publish", token: token, json: ["reason": "first"])
            try #require(published.status == 201, "\(published.text)")
            let audit = try await w.call(.get, "/v1/audit?action=domain.publish", token: token)
            let items = audit.object["items"] as? [[String: Any]] ?? []
            #expect(items.count == 1 && items.first?["team"] as? String == "own", "\(audit.text)")
        }
    }

    /// `AASA_TOKEN` holding a team's token (as CI and `aasactl login --oidc` pass it): team commands
    /// use its team, as `whoami` names it, with no `--team`.
    @Test func aTeamTokenFromTheEnvironmentNeedsNoTeamFlag() async throws {
        try await CLIEndToEndTests.withServer { server, cli, _ in
            #expect(try await cli("teams", "create", "shop").status == 0)
            let created = try await cli("tokens", "create", "ci", "--team", "shop", "--scope", "write", "--quiet")
            let secret = created.out.trimmingCharacters(in: .whitespacesAndNewlines)
            try #require(created.status == 0 && secret.hasPrefix("aasa_"), "\(created)")
            let env = ["AASA_SERVER": server.baseURL, "AASA_TOKEN": secret]
            let list = try await cli.run(["apps", "list"], environment: env)
            #expect(list.status == 0, "\(list)")
            let app = try await cli.run(["apps", "create", "ABCDE12345.com.shop.app"], environment: env)
            #expect(app.status == 0, "\(app)")
            // An admin's token has no team: the message says so, not that the flag was forgotten.
            let admin = try await cli("apps", "list")
            #expect(admin.status != 0 && admin.err.contains("admin"), "\(admin)")
        }
    }

    /// A relying party nobody set up is 404 with what to do, and the CLI exits non-zero: before, a
    /// typo got a plausible origin list and exit 0.
    @Test func aRelyingPartyNobodySetUpIsNotFound() async throws {
        try await CLIEndToEndTests.withServer { _, cli, _ in
            #expect(try await cli("domains", "create", "shop.test").status == 0)
            for command in [["passkeys", "origins", "shpo.test"], ["passkeys", "check", "shpo.test"]] {
                let run = try await cli.run(command)
                #expect(run.status != 0 && run.err.contains("no relying party shpo.test"), "\(command): \(run)")
            }
            let known = try await cli("passkeys", "origins", "shop.test")
            #expect(known.status == 0 && known.out.contains("https://shop.test"), "\(known)")
        }
    }

    /// A pipeline's login that fails stops its step where it fails: `eval "$(aasactl login …)"` ran
    /// `eval ""` (status 0) and the job failed later, at `plan`, for another reason. The README and
    /// the CI templates assign the login first, which `set -e` stops on.
    @Test func aFailedPipelineLoginStopsTheStep() async throws {
        let root = TestDatabase.repositoryRoot
        for file in ["/README.md", "/deploy/ci/gitlab-ci.yml", "/deploy/ci/github/action.yml"] {
            let lines = try String(contentsOfFile: root + file, encoding: .utf8).split(separator: "\n")
            let evals = lines.filter {
                let code = $0.trimmingCharacters(in: .whitespaces)
                return code.hasPrefix("eval \"$(aasactl login") || code.hasPrefix("- eval \"$(aasactl login")
            }
            #expect(evals.isEmpty, "\(file) evals the login's output directly: \(evals)")
        }
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8).split(separator: "\n")
        let login = try #require(readme.first { $0.hasPrefix("login=\"$(aasactl login --oidc --token-env") })
        let script = "set -euo pipefail\n\(login)\neval \"$login\"\necho the-next-step-ran\n"
        // No ID token in the variable it names: the login fails.
        let run = try await OIDCJobTests.run(script, environment: ["AASA_SERVER": "http://127.0.0.1:9"])
        #expect(run.status != 0 && !run.out.contains("the-next-step-ran"), "\(run)")
    }

    /// A rule written without its leading / is "a path starts with /", with the fix: before, it was
    /// "outside team shop's grant", which sent the newcomer to the grant.
    @Test func aRuleWithoutItsLeadingSlashSaysSo() async throws {
        let root = try PublishingTests.tempDir()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestWorld.run { w in
            let token = try await PublishingTests.setUp(w, webRoots: [root])
            let grant = try await w.call(
                .put, "/v1/domains/example.com/grants/own", token: w.adminToken, json: ["pathPrefixes": ["/shop"]])
            try #require(grant.status == 200, "\(grant.text)")
            let reply = try await w.call(
                .put, "/v1/domains/example.com/apps/\(PublishingTests.app)/rules", token: token,
                json: ["rules": [["/": "shop/*"]]])
            #expect(reply.status == 422 && reply.problemRules == ["path-slash"], "\(reply.text)")
            #expect(reply.text.contains("write `/shop/*`"), "\(reply.text)")
        }
    }

    /// A body's mistakes in a person's words: what the field takes, with an example or the allowed
    /// values, never a Swift type.
    @Test func aBodysMistakesAreSaidInPlainWords() async throws {
        try await TestWorld.run { w in
            try #require(try await w.createTeam("shop").status == 201)
            let service = try await w.call(
                .post, "/v1/teams/shop/apps", token: w.adminToken,
                json: ["appID": "ABCDE12345.com.shop.app", "services": ["applinks", "webcredential"]])
            #expect(service.status == 400 && service.problemFields == ["/services/1"], "\(service.text)")
            #expect(
                service.text.contains("applinks, webcredentials, appclips, activitycontinuation")
                    && service.text.contains("did you mean webcredentials?"), "\(service.text)")
            #expect(!service.text.contains("Cannot initialize"), "\(service.text)")
            #expect(
                try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "shop.test"]).status == 201)
            let rules = try await w.call(
                .put, "/v1/domains/shop.test/apps/ABCDE12345.com.shop.app/rules", token: w.adminToken,
                json: ["rules": ["/shop/*"]])
            #expect(rules.status == 400 && rules.problemFields == ["/rules/0"], "\(rules.text)")
            #expect(rules.text.contains("{\\\"/\\\": \\\"/shop/*\\\"}"), "\(rules.text)")
            #expect(!rules.text.contains("Dictionary"), "\(rules.text)")
        }
    }

    /// A provider on an internal address (most corporate ones are): the page, the log's refusal and
    /// the audit name the outbound rule and the two settings, every time; before, "cannot be
    /// reached … retry later" named neither, and the second attempt not even the first's cause.
    @Test func anInternalProviderIsRefusedNamingTheRuleAndTheSetting() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("console-oidc-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "secret\n".write(toFile: dir + "/corp.secret", atomically: true, encoding: .utf8)
        let file: [String: Any] = [
            "baseURL": "http://aasad.test",
            "providers": [
                [
                    "name": "corp", "displayName": "Corp SSO", "issuer": "https://localhost:9",
                    "clientID": "aasad", "clientSecretFile": dir + "/corp.secret",
                ]
            ],
        ]
        try JSONSerialization.data(withJSONObject: file).write(to: URL(fileURLWithPath: dir + "/oidc.json"))
        let config = try ConsoleOIDCConfig.load(path: dir + "/oidc.json", environment: [:])
        let configure: @Sendable (inout AppConfig) -> Void = { $0.consoleOIDC = config }
        try await TestWorld.run(configure: configure) { w in
            for attempt in 1...2 {
                let start = try await PersonBrowser(w).get("/console/sign-in/oidc/corp")
                #expect(start.status == 503, "attempt \(attempt): \(start.status)")
                #expect(
                    start.text.contains("AASA_PROBE_RESOLVE") && start.text.contains("AASA_PROBE_ALLOW_PRIVATE"),
                    "attempt \(attempt): \(start.text.prefix(3000))")
            }
            let refused = try await ConsoleOIDCTests.audit(w, "console.sign-in-refused")
            #expect(refused.count == 2 && refused.allSatisfy { $0.after.contains("AASA_PROBE_RESOLVE") }, "\(refused)")
        }
    }

    /// A sign-in started on another address of the server than the console's baseURL comes back
    /// without its cookie: the page says where to start it (before: "started in another browser").
    @Test func aSignInStartedOnAnotherHostSaysWhereToStart() async throws {
        let corp = try await ConsoleOIDCTests.provider("corp")
        try await TestWorld.run(configure: try ConsoleOIDCTests.configure([corp])) { w in
            _ = try await ConsoleOIDCTests.setUp(w)
            let started = PersonBrowser(w)
            let start = try await started.get("/console/sign-in/oidc/corp")
            let back = try await corp.idp.authorize(try #require(start.headers[.location]), as: "alice")
            // The provider's answer reaches baseURL's host, where this browser's cookie never was.
            let elsewhere = PersonBrowser(w)
            let reply = try await elsewhere.get(String(back.dropFirst(ConsoleOIDCTests.base.count)))
            #expect(reply.status == 401, "\(reply.status)")
            #expect(reply.text.contains("\(ConsoleOIDCTests.base)/console/sign-in"), "\(reply.text.prefix(3000))")
        }
    }

    /// Another team's name, asked by a team's token: still not revealed to exist, but said as what
    /// the token sees, naming its own team (before: "no team blog", of a team that exists).
    @Test func anotherTeamIsNotFoundAsWhatTheTokenSees() async throws {
        try await TestWorld.run { w in
            for team in ["shop", "blog"] { try #require(try await w.createTeam(team).status == 201) }
            let shop = try await w.teamToken("shop", scopes: ["write"]).secret
            let read = try await w.call(.get, "/v1/teams/blog/apps", token: shop)
            let write = try await w.call(
                .post, "/v1/teams/blog/tokens", token: shop, json: ["name": "x", "scopes": ["read"]])
            for reply in [read, write] {
                #expect(reply.status == 404 && reply.text.contains("own team (shop)"), "\(reply.text)")
            }
            let unknown = try await w.call(.get, "/v1/teams/nope/apps", token: shop)
            #expect(
                unknown.status == 404 && unknown.text.contains("own team (shop)"), "the same words: \(unknown.text)")
        }
    }

    /// An apply that changes nothing but publishes says "No changes" once (the plan's), not twice.
    @Test func anUnchangedApplySaysNoChangesOnce() async throws {
        try await CLIEndToEndTests.withServer { server, cli, _ in
            try await CLIEndToEndTests.setUpShop(cli, server: server)
            let manifest = try CLIEndToEndTests.temp("aasa.yaml", CLIEndToEndTests.manifest)
            let first = try await cli("apply", "-f", manifest, "--profile", "shop", "--yes")
            try #require(first.status == 0, "\(first)")
            let again = try await cli("apply", "-f", manifest, "--profile", "shop", "--yes", "--publish")
            #expect(again.status == 0, "\(again)")
            #expect(again.out.components(separatedBy: "No changes").count == 2, "once: \(again.out)")
        }
    }
}
