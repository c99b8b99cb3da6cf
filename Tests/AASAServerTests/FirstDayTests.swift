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
}
