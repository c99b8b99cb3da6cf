import AASAAPI
import AASAModel
import ArgumentParser
import Foundation

/// `aasactl oidc`: the OIDC issuers whose CI jobs may exchange ID tokens, and each team's trust
/// rules (admin).
struct OIDC: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oidc",
        abstract: "Release pipelines without stored secrets: trusted OIDC issuers and teams' trust rules (admin).",
        subcommands: [Issuers.self, Trust.self, ConsoleMappings.self]
    )

    struct Issuers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The issuers whose ID tokens may be exchanged.", subcommands: [List.self, Set.self, Delete.self])

        struct List: AsyncParsableCommand {
            @OptionGroup var remote: RemoteOptions
            func run() async throws {
                let response = try await remote.client.send(.get, "/v1/oidc/issuers")
                try remote.show(response, as: Components.Schemas.OIDCIssuerList.self) {
                    Table.rows(
                        $0.items,
                        [
                            ("NAME", { ContractAnswer.cell($0.name) }), ("ISSUER", { ContractAnswer.cell($0.issuer) }),
                            ("AUDIENCE", { ContractAnswer.cell($0.audience) }),
                        ])
                }
            }
        }

        struct Set: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract:
                    "Trust an issuer: github is https://token.actions.githubusercontent.com, gitlab https://gitlab.com."
            )
            @OptionGroup var remote: RemoteOptions
            @Argument(help: "A short name (github, gitlab…).") var name: String
            @Option(help: "The issuer URL, as its tokens' iss names it.") var issuer: String
            @Option(help: "The aud its tokens must carry.") var audience: String
            @Option(help: "The ETag (version) the change is based on.") var ifMatch: String?
            func run() async throws {
                let response = try await remote.client.send(
                    .put, APIClient.path("v1", "oidc", "issuers", name),
                    body: .object(["issuer": .string(issuer), "audience": .string(audience)]),
                    headers: ifMatchHeader(ifMatch))
                try remote.show(response, as: Components.Schemas.OIDCIssuer.self) {
                    Table.fields(
                        $0,
                        [
                            ("Name", { ContractAnswer.cell($0.name) }), ("Issuer", { ContractAnswer.cell($0.issuer) }),
                            ("Audience", { ContractAnswer.cell($0.audience) }),
                        ])
                }
            }
        }

        struct Delete: AsyncParsableCommand {
            @OptionGroup var remote: RemoteOptions
            @Argument var name: String
            func run() async throws {
                _ = try await remote.client.send(.delete, APIClient.path("v1", "oidc", "issuers", name))
                remote.say("No longer trusting \(name).")
            }
        }
    }

    struct Trust: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A team's trust rules: which jobs get which scopes.", subcommands: [Show.self, Set.self])

        static func rows(_ json: JSONValue) -> [String] {
            (json.objectValue?["rules"]?.arrayValue ?? []).map { rule in
                let claims = (rule.objectValue?["claims"]?.objectValue ?? [:]).map {
                    "\($0.key)=\($0.value.stringValue ?? "")"
                }
                return
                    "\(Table.value(rule, "issuer")): \(claims.joined(separator: " ")) -> \(Table.value(rule, "scopes"))"
            }
        }

        struct Show: AsyncParsableCommand {
            @OptionGroup var remote: RemoteOptions
            @Argument var team: String
            func run() async throws {
                try remote.show(try await remote.client.send(.get, APIClient.path("v1", "teams", team, "trust")), rows)
            }
        }

        struct Set: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Replace a team's trust rules with those of a YAML or JSON file (a list, or {rules: [...]}).",
                discussion: """
                    Each rule: {issuer: github, claims: {repository: acme/shop-ios, ref: "refs/tags/v*"}, \
                    scopes: [write]}. A rule names the repository (GitHub) or project_path (GitLab) exactly; \
                    other claims match exactly, or by prefix where the value ends in *.
                    """)
            @OptionGroup var remote: RemoteOptions
            @Argument var team: String
            @Option(name: .customLong("file"), help: "The rules, as YAML or JSON.") var file: String
            @Option(help: "The ETag (version) the change is based on.") var ifMatch: String?
            func run() async throws {
                let value = try YAMLJSON.parse(String(decoding: try CLIOutput.read(file), as: UTF8.self), file: file)
                guard let rules = value.arrayValue ?? value.objectValue?["rules"]?.arrayValue else {
                    throw CLIFailure("\(file): a list of rules, or {rules: [...]}")
                }
                let response = try await remote.client.send(
                    .put, APIClient.path("v1", "teams", team, "trust"), body: .object(["rules": .array(rules)]),
                    headers: ifMatchHeader(ifMatch))
                try remote.show(response, rows)
            }
        }
    }
}
