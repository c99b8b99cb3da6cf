import AASAModel
import ArgumentParser

struct Apps: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "App IDs (TEAMID.bundle.id) and the services they take part in.",
        subcommands: [List.self, Show.self, Create.self, Update.self, Delete.self]
    )

    static func fields(_ json: JSONValue) -> [String] {
        Table.fields(json, [("App ID", "appID"), ("Team", "team"), ("Services", "services"), ("Version", "version"), ("Updated", "updatedAt")])
    }

    struct List: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Option(help: "Default: the logged-in token's team.") var team: String?
        func run() async throws {
            let response = try await remote.client.send(.GET, APIClient.path("v1", "teams", try remote.team(team), "apps"))
            try remote.show(response) { Table.rows($0, [("APP ID", "appID"), ("SERVICES", "services"), ("VERSION", "version")]) }
        }
    }

    struct Show: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var appID: String
        func run() async throws {
            try remote.show(try await remote.client.send(.GET, APIClient.path("v1", "apps", appID)), Apps.fields)
        }
    }

    struct Create: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Option(help: "Default: the logged-in token's team.") var team: String?
        @Argument var appID: String
        @Option(name: .customLong("service"), help: "applinks, webcredentials, appclips, activitycontinuation; repeat. Default applinks.")
        var services: [String] = []
        func run() async throws {
            var body: JSONObject = ["appID": .string(appID)]
            if !services.isEmpty { body.append("services", .array(services.map(JSONValue.string))) }
            let response = try await remote.client.send(.POST, APIClient.path("v1", "teams", try remote.team(team), "apps"), body: .object(body))
            try remote.show(response, Apps.fields)
        }
    }

    struct Update: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var appID: String
        @Option(name: .customLong("service"), help: "The full list of services; repeat.") var services: [String] = []
        @Option(help: "Move the app to another team (admin).") var moveToTeam: String?
        @Option(help: "The ETag (version) the change is based on.") var ifMatch: String?
        func run() async throws {
            var body = JSONObject()
            if !services.isEmpty { body.append("services", .array(services.map(JSONValue.string))) }
            if let moveToTeam { body.append("team", .string(moveToTeam)) }
            let response = try await remote.client.send(.PATCH, APIClient.path("v1", "apps", appID), body: .object(body), headers: ifMatchHeader(ifMatch))
            try remote.show(response, Apps.fields)
        }
    }

    struct Delete: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var appID: String
        @Option(help: "The ETag (version) the deletion is based on.") var ifMatch: String?
        func run() async throws {
            _ = try await remote.client.send(.DELETE, APIClient.path("v1", "apps", appID), headers: ifMatchHeader(ifMatch))
            remote.say("Deleted app \(appID).")
        }
    }
}

/// `aasactl entitlements APPID`: what goes in the app's associated-domains entitlement.
struct Entitlements: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The com.apple.developer.associated-domains array the app needs for the files published here.")
    @OptionGroup var remote: RemoteOptions
    @Argument var appID: String
    @Option(help: "developer (bypasses Apple's CDN on development devices), managed, or developer+managed.") var mode: String?
    @Flag(help: "Print an .entitlements property list.") var plist = false
    func run() async throws {
        let response = try await remote.client.send(.GET, APIClient.path("v1", "apps", appID, "entitlements"), query: [("mode", mode)])
        try remote.show(response) { json in
            if plist { return [json.objectValue?["plist"]?.stringValue ?? ""] }
            return (json.objectValue?["associatedDomains"]?.arrayValue ?? []).compactMap(\.stringValue)
        }
    }
}
