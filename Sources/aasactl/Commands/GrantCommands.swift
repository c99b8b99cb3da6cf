import AASAAPI
import AASAModel
import ArgumentParser

struct Grants: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Which path prefixes of a domain each team may write rules for (changes are for admins).",
        subcommands: [List.self, Show.self, Set.self, Delete.self]
    )

    typealias Grant = Components.Schemas.Grant

    static func fields(_ grant: Grant) -> [String] {
        Table.fields(
            grant,
            [
                ("Host", { ContractAnswer.cell($0.host) }), ("Team", { ContractAnswer.cell($0.team) }),
                ("Prefixes", { ContractAnswer.cell($0.pathPrefixes) }),
                ("Services", { ContractAnswer.cell($0.services?.map(\.rawValue)) }),
                ("Version", { ContractAnswer.cell($0.version) }),
            ])
    }

    struct List: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        func run() async throws {
            let response = try await remote.client.send(.get, APIClient.path("v1", "domains", host, "grants"))
            try remote.show(response, as: Components.Schemas.GrantList.self) {
                Table.rows(
                    $0.items,
                    [
                        ("TEAM", { ContractAnswer.cell($0.team) }),
                        ("PREFIXES", { ContractAnswer.cell($0.pathPrefixes) }),
                        ("SERVICES", { ContractAnswer.cell($0.services?.map(\.rawValue)) }),
                        ("VERSION", { ContractAnswer.cell($0.version) }),
                    ])
            }
        }
    }

    struct Show: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        @Argument var team: String
        func run() async throws {
            try remote.show(
                try await remote.client.send(.get, APIClient.path("v1", "domains", host, "grants", team)),
                as: Grants.Grant.self, Grants.fields
            )
        }
    }

    struct Set: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        @Argument var team: String
        @Option(name: .customLong("prefix"), help: "A path prefix such as /shop; repeat.") var prefixes: [String]
        @Option(
            name: .customLong("service"),
            help:
                """
                A domain-wide service the team's apps may be listed for: webcredentials, appclips, \
                activitycontinuation; repeat.
                """
        )
        var services: [String] = []
        @Option(help: "The ETag (version) the change is based on.") var ifMatch: String?
        func run() async throws {
            let response = try await remote.client.send(
                .put, APIClient.path("v1", "domains", host, "grants", team),
                body: .object([
                    "pathPrefixes": .array(prefixes.map(JSONValue.string)),
                    "services": .array(services.map(JSONValue.string)),
                ]),
                headers: ifMatchHeader(ifMatch))
            try remote.show(response, as: Grants.Grant.self, Grants.fields)
        }
    }

    struct Delete: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        @Argument var team: String
        func run() async throws {
            _ = try await remote.client.send(.delete, APIClient.path("v1", "domains", host, "grants", team))
            remote.say("Withdrew \(team)'s grant on \(host).")
        }
    }
}
