import AASATestSupport
import Foundation
import Testing

/// `aasactl oidc console-mappings` (issue 53), the built binary against a real `aasad`: the whole
/// list set from a YAML file, what changes printed first, `--dry-run` changing nothing, and a
/// refusal naming the field.
@Suite struct ConsoleMappingsCLITests {
    @Test func mappingsAreSetFromAFileAndShown() async throws {
        // aasad with the example file's provider (`corp`): a mapping names a provider it has.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("console-oidc-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "not-a-real-secret\n".write(toFile: dir + "/corp.secret", atomically: true, encoding: .utf8)
        let providers: [String: Any] = [
            "baseURL": "http://aasad.test",
            "providers": [
                [
                    "name": "corp", "displayName": "Corp SSO", "issuer": "https://idp.test", "clientID": "aasad",
                    "clientSecretFile": dir + "/corp.secret",
                ]
            ],
        ]
        try JSONSerialization.data(withJSONObject: providers).write(to: URL(fileURLWithPath: dir + "/oidc.json"))
        try await CLIEndToEndTests.withServer(environment: ["AASA_CONSOLE_OIDC_FILE": dir + "/oidc.json"]) {
            _, cli, _ in
            #expect(try await cli("teams", "create", "shop").status == 0)
            #expect(try await cli("teams", "create", "blog").status == 0)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("mappings-\(UUID()).yaml").path
            try String(
                contentsOfFile: TestDatabase.repositoryRoot + "/deploy/console-oidc/mappings.example.yaml",
                encoding: .utf8
            ).write(toFile: file, atomically: true, encoding: .utf8)
            let dry = try await cli("oidc", "console-mappings", "set", "--file", file, "--dry-run")
            #expect(dry.status == 0 && dry.out.contains("+ corp group aasa-admins -> organisation admin"), "\(dry)")
            #expect(try await cli("oidc", "console-mappings", "show").out.contains("shop-developers") == false)
            let set = try await cli("oidc", "console-mappings", "set", "--file", file)
            #expect(set.status == 0 && set.out.contains("+ corp group shop-developers -> write on team shop"), "\(set)")
            let shown = try await cli("oidc", "console-mappings", "show")
            #expect(shown.out.contains("corp group blog-readers -> read on team blog"), "\(shown)")
            #expect(try await cli("oidc", "console-mappings", "set", "--file", file).out.contains("No change."))
            try "- { provider: corp, group: x, team: nope, role: read }\n".write(
                toFile: file, atomically: true, encoding: .utf8)
            let refused = try await cli("oidc", "console-mappings", "set", "--file", file)
            #expect(refused.status != 0 && refused.err.contains("/mappings/0/team"), "\(refused)")
            #expect(try await cli("oidc", "console-mappings", "show").out.contains("aasa-admins"), "unchanged")
        }
    }
}
