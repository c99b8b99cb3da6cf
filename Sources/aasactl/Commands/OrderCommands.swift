import AASAAPI
import AASAModel
import ArgumentParser

struct Order: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The order of apps in a domain's file (the first app that matches opens a URL).",
        subcommands: [Show.self, Set.self]
    )

    static func lines(_ order: Components.Schemas.DomainOrder) -> [String] {
        ["\(order.host) (version \(order.version)):"] + order.apps.enumerated().map { "  \($0 + 1). \($1)" }
            + Table.findings(order.warnings, heading: "Warnings:")
    }

    struct Show: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        func run() async throws {
            try remote.show(
                try await remote.client.send(.get, APIClient.path("v1", "domains", host, "order")),
                as: Components.Schemas.DomainOrder.self, Order.lines)
        }
    }

    struct Set: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        @Argument(help: "App IDs, first consulted first.") var apps: [String]
        @Option(help: "The ETag (version) the change is based on.") var ifMatch: String?
        func run() async throws {
            let response = try await remote.client.send(
                .put, APIClient.path("v1", "domains", host, "order"),
                body: .object(["apps": .array(apps.map(JSONValue.string))]), headers: ifMatchHeader(ifMatch))
            try remote.show(response, as: Components.Schemas.DomainOrder.self, Order.lines)
        }
    }
}
