import AASAAPI
import AASAModel
import ArgumentParser

struct Teams: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Teams (creating, renaming and deleting them is for admins).",
        subcommands: [List.self, Show.self, Create.self, Update.self, Delete.self]
    )

    typealias Team = Components.Schemas.Team

    /// Computed, not stored: a stored list of `@Sendable` cells passed to `Table.rows`'s plain ones
    /// compiled and then crashed at run time ("Could not cast value of type '@Sendable (Team) ->
    /// String'", Swift 6.3).
    static var columns: [(header: String, cell: (Team) -> String)] {
        [
            ("NAME", { ContractAnswer.cell($0.name) }), ("DISPLAY NAME", { ContractAnswer.cell($0.displayName) }),
            ("VERSION", { ContractAnswer.cell($0.version) }),
            ("UPDATED", { ContractAnswer.cell($0.updatedAt) }),
        ]
    }
    static func fields(_ team: Team) -> [String] {
        Table.fields(
            team,
            [
                ("Name", { ContractAnswer.cell($0.name) }), ("Display name", { ContractAnswer.cell($0.displayName) }),
                ("Apple Team IDs", { ContractAnswer.cell($0.appleTeamIDs) }),
                ("Created", { ContractAnswer.cell($0.createdAt) }),
                ("Updated", { ContractAnswer.cell($0.updatedAt) }), ("Version", { ContractAnswer.cell($0.version) }),
            ])
    }

    struct List: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        func run() async throws {
            try remote.show(try await remote.client.sendAllPages("/v1/teams"), as: Components.Schemas.TeamList.self) {
                Table.rows($0.items, Teams.columns)
            }
        }
    }

    struct Show: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var name: String
        func run() async throws {
            try remote.show(
                try await remote.client.send(.get, APIClient.path("v1", "teams", name)), as: Teams.Team.self,
                Teams.fields)
        }
    }

    struct Create: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument(help: "Lower-case letters, digits and hyphens.") var name: String
        @Option var displayName: String?
        func run() async throws {
            var body: JSONObject = ["name": .string(name)]
            if let displayName { body.append("displayName", .string(displayName)) }
            try remote.show(
                try await remote.client.send(.post, "/v1/teams", body: .object(body)), as: Teams.Team.self, Teams.fields
            )
        }
    }

    struct Update: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var name: String
        @Option var displayName: String?
        @Option(
            name: .customLong("apple-team-id"),
            help: "An Apple Team ID prefix the team's apps must use (admin); repeat.")
        var appleTeamIDs: [String] = []
        @Flag(
            name: .customLong("clear-apple-team-ids"), help: "Unbind every Apple Team ID prefix of the team (admin).")
        var clearAppleTeamIDs = false
        func validate() throws {
            guard displayName != nil || !appleTeamIDs.isEmpty || clearAppleTeamIDs else {
                throw ValidationError("give --display-name, --apple-team-id or --clear-apple-team-ids")
            }
        }
        @Option(help: "The ETag (version) the change is based on.") var ifMatch: String?
        func run() async throws {
            var body = JSONObject()
            if let displayName { body.append("displayName", .string(displayName)) }
            if !appleTeamIDs.isEmpty || clearAppleTeamIDs {
                body.append("appleTeamIDs", .array(appleTeamIDs.map(JSONValue.string)))
            }
            let response = try await remote.client.send(
                .patch, APIClient.path("v1", "teams", name),
                body: .object(body), headers: ifMatchHeader(ifMatch))
            try remote.show(response, as: Teams.Team.self, Teams.fields)
        }
    }

    struct Delete: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var name: String
        @Option(help: "The ETag (version) the deletion is based on.") var ifMatch: String?
        func run() async throws {
            _ = try await remote.client.send(
                .delete, APIClient.path("v1", "teams", name), headers: ifMatchHeader(ifMatch))
            remote.say("Deleted team \(name).")
        }
    }
}

/// `If-Match` from `--if-match`: a bare version number is quoted as the API's ETags are.
func ifMatchHeader(_ value: String?) -> [(String, String)] {
    guard let value else { return [] }
    return [("If-Match", value.allSatisfy(\.isNumber) ? "\"\(value)\"" : value)]
}
