import AASATestSupport
import Foundation
import Testing

/// `aasactl passkeys …` (issue 52), the built binary against a real `aasad`: a related origin added
/// and listed, an Android app marked as a client, the readiness check's exit status, and the
/// origins in each format a passkey server's configuration takes.
@Suite struct PasskeysCLITests {
    @Test func passkeysCommands() async throws {
        try await CLIEndToEndTests.withServer { _, cli, _ in
            #expect(try await cli("teams", "create", "shop").status == 0)
            #expect(try await cli("domains", "create", "shop.test").status == 0)
            let grant = try await cli(
                "grants", "set", "shop.test", "shop", "--prefix", "/", "--service", "webcredentials")
            #expect(grant.status == 0, "\(grant)")
            let app = try await cli(
                "apps", "create", "com.shop.app", "--team", "shop", "--platform", "android", "--service",
                "webcredentials",
                "--fingerprint", PasskeysTests.googleExample)
            #expect(app.status == 0, "\(app)")

            let added = try await cli("passkeys", "related-origins", "shop.test", "--add", "https://shop.example.de")
            #expect(added.status == 0 && added.out.contains("https://shop.example.de"), "\(added)")
            let refused = try await cli("passkeys", "related-origins", "shop.test", "--add", "http://shop.example")
            #expect(refused.status == 1 && refused.err.contains("/origin"), "\(refused)")
            let marked = try await cli("passkeys", "clients", "com.shop.app", "shop.test")
            #expect(marked.status == 0 && marked.out.contains("com.shop.app: shop.test"), "\(marked)")

            // Nothing published yet: broken, with the fix, and exit 1.
            let check = try await cli("passkeys", "check", "shop.test")
            #expect(check.status == 1 && check.out.contains("fix: publish shop.test"), "\(check)")
            #expect(try await cli("publish", "shop.test", "--reason", "passkeys").status == 0)
            let after = try await cli("passkeys", "check", "shop.test")
            #expect(after.status == 0 && after.out.contains("not-yet-at-cdn"), "\(after)")

            let androidOrigin = "android:apk-key-hash:FG3pg8VzBlDY7rmVLzT8ZBagg0LmHb6oigSWsj_PROU"
            let env = try await cli("passkeys", "origins", "shop.test", "--format", "env")
            #expect(
                env.out.trimmingCharacters(in: .whitespacesAndNewlines)
                    == "PASSKEY_ORIGINS=https://shop.test,https://shop.example.de,\(androidOrigin)", "\(env)")
            let json = try await cli("passkeys", "origins", "shop.test")
            let list = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String]
            #expect(list == ["https://shop.test", "https://shop.example.de", androidOrigin], "\(json)")
            let yaml = try await cli("passkeys", "origins", "shop.test", "--format", "yaml")
            #expect(yaml.out.contains("origins:\n  - \"https://shop.test\"\n"), "\(yaml)")

            // A manifest declares the team's related origins; plan shows them, apply writes them.
            let manifest = try CLIEndToEndTests.temp(
                "shop.yaml",
                """
                team: shop
                domains:
                  shop.test:
                    relatedOrigins:
                      - https://login.example.fr
                """)
            let plan = try await cli("plan", "-f", manifest)
            #expect(plan.out.contains("+ related origin https://login.example.fr"), "\(plan)")
            let markdown = try await cli("plan", "-f", manifest, "--format", "markdown")
            #expect(markdown.out.contains("- added `https://login.example.fr`"), "\(markdown)")
            let apply = try await cli("apply", "-f", manifest, "--yes")
            #expect(apply.status == 0, "\(apply)")
            let listed = try await cli("passkeys", "related-origins", "shop.test")
            #expect(listed.out.contains("https://login.example.fr") && listed.out.contains("shop"), "\(listed)")
        }
    }
}
