import AASAAPI
import AASAModel
import ArgumentParser

struct Tokens: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A team's tokens. Secrets are shown once, when created.",
        subcommands: [List.self, Create.self, Revoke.self]
    )

    struct List: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Option(help: "Default: the logged-in token's team.") var team: String?
        func run() async throws {
            let response = try await remote.client.send(
                .get, APIClient.path("v1", "teams", try await remote.team(team), "tokens"))
            try remote.show(response, as: Components.Schemas.TokenList.self) {
                Table.rows(
                    $0.items,
                    [
                        ("ID", { ContractAnswer.cell($0.id) }), ("NAME", { ContractAnswer.cell($0.name) }),
                        ("SCOPES", { ContractAnswer.cell($0.scopes.map(\.rawValue)) }),
                        ("EXPIRES", { ContractAnswer.cell($0.expiresAt) }),
                        ("REVOKED", { ContractAnswer.cell($0.revokedAt) }),
                        ("LAST USED", { ContractAnswer.cell($0.lastUsedAt) }),
                    ])
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a token of a team (by default the token in use's team); its secret is shown once.",
            discussion: "With --quiet, prints only the secret (for scripts).")
        @OptionGroup var remote: RemoteOptions
        @Option(help: "Default: the logged-in token's team.") var team: String?
        @Argument var name: String
        @Option(name: .customLong("scope"), help: "write, read (admin for admins to give); repeat for several.")
        var scopes: [String] = ["read"]
        @Option(help: "Expiry, ISO 8601 (e.g. 2027-01-01T00:00:00Z).") var expires: String?
        @Option(help: "Idempotency-Key, so a retry cannot mint a second token.") var idempotencyKey: String?
        func run() async throws {
            var body: JSONObject = ["name": .string(name), "scopes": .array(scopes.map(JSONValue.string))]
            if let expires { body.append("expiresAt", .string(expires)) }
            let response = try await remote.client.send(
                .post, APIClient.path("v1", "teams", try await remote.team(team), "tokens"),
                body: .object(body), headers: idempotencyKey.map { [("Idempotency-Key", $0)] } ?? [])
            if remote.quiet {
                CLIOutput.print(Table.value(try response.json(), "secret"))
                return
            }
            try remote.show(response, as: Components.Schemas.TokenCreated.self) {
                Table.fields(
                    $0,
                    [
                        ("ID", { ContractAnswer.cell($0.token.id) }), ("Name", { ContractAnswer.cell($0.token.name) }),
                        ("Team", { ContractAnswer.cell($0.token.team) }),
                        ("Scopes", { ContractAnswer.cell($0.token.scopes.map(\.rawValue)) }),
                        ("Expires", { ContractAnswer.cell($0.token.expiresAt) }),
                        ("Secret", { ContractAnswer.cell($0.secret) }),
                    ]) + ["The secret is shown only now."]
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Option(help: "Default: the logged-in token's team.") var team: String?
        @Argument var tokenID: String
        func run() async throws {
            _ = try await remote.client.send(
                .delete, APIClient.path("v1", "teams", try await remote.team(team), "tokens", tokenID))
            remote.say("Revoked token \(tokenID).")
        }
    }
}
