import AASAAPI
import AASAModel
import ArgumentParser

struct Apps: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            """
            Apps: iOS app IDs (TEAMID.bundle.id), Android package names with their signing fingerprints, and \
            their services.
            """,
        subcommands: [List.self, Show.self, Create.self, Update.self, Delete.self, AppKeys.self]
    )

    typealias App = Components.Schemas.App

    static func fields(_ app: App) -> [String] {
        let fields: [(label: String, cell: (App) -> String)] = [
            ("App ID", { ContractAnswer.cell($0.appID) }), ("Team", { ContractAnswer.cell($0.team) }),
            ("Platform", { $0.platform.rawValue }),
            ("Services", { ContractAnswer.cell($0.services.map(\.rawValue)) }),
            ("Fingerprints", { ContractAnswer.cell($0.fingerprints) }),
            ("Key labels", { $0.keyLabels.map { ContractAnswer.cell(object: $0) } ?? "-" }),
            ("Rules from", { ContractAnswer.cell($0.rulesFrom) }), ("Version", { ContractAnswer.cell($0.version) }),
            ("Updated", { ContractAnswer.cell($0.updatedAt) }),
        ]
        return Table.fields(app, fields)
    }

    struct List: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Option(help: "Default: the logged-in token's team.") var team: String?
        func run() async throws {
            let response = try await remote.client.send(
                .get, APIClient.path("v1", "teams", try await remote.team(team), "apps"))
            try remote.show(response, as: Components.Schemas.AppList.self) {
                Table.rows(
                    $0.items,
                    [
                        ("APP ID", { ContractAnswer.cell($0.appID) }), ("PLATFORM", { $0.platform.rawValue }),
                        ("SERVICES", { ContractAnswer.cell($0.services.map(\.rawValue)) }),
                        ("VERSION", { ContractAnswer.cell($0.version) }),
                    ])
            }
        }
    }

    struct Show: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var appID: String
        func run() async throws {
            try remote.show(
                try await remote.client.send(.get, APIClient.path("v1", "apps", appID)), as: Apps.App.self, Apps.fields)
        }
    }

    struct Create: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Option(help: "Default: the logged-in token's team.") var team: String?
        @Argument var appID: String
        @Option(
            name: .customLong("service"),
            help:
                """
                applinks, webcredentials, appclips, activitycontinuation (Android: the first two); repeat. \
                Default applinks.
                """
        )
        var services: [String] = []
        @Option(help: "ios (default) or android: an Android app's ID is its package name.") var platform: String?
        @Option(
            name: .customLong("fingerprint"),
            help:
                """
                An Android app's signing certificate SHA-256 (AB:CD:…); repeat for the upload, Play App Signing \
                and debug keys.
                """
        )
        var fingerprints: [String] = []
        @Option(help: "An Android app: follow this iOS app's rules (same team) on every domain.") var rulesFrom: String?
        func run() async throws {
            var body: JSONObject = ["appID": .string(appID)]
            if let rulesFrom { body.append("rulesFrom", .string(rulesFrom)) }
            if !services.isEmpty { body.append("services", .array(services.map(JSONValue.string))) }
            if let platform { body.append("platform", .string(platform)) }
            if !fingerprints.isEmpty { body.append("fingerprints", .array(fingerprints.map(JSONValue.string))) }
            let response = try await remote.client.send(
                .post, APIClient.path("v1", "teams", try await remote.team(team), "apps"), body: .object(body))
            try remote.show(response, as: Apps.App.self, Apps.fields)
        }
    }

    struct Update: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var appID: String
        @Option(name: .customLong("service"), help: "The full list of services; repeat.") var services: [String] = []
        @Option(help: "Move the app to another team (admin).") var moveToTeam: String?
        @Option(name: .customLong("fingerprint"), help: "An Android app's full list of signing fingerprints; repeat.")
        var fingerprints: [String] = []
        @Option(help: "An Android app: follow this iOS app's rules; \"\" to keep its own again.") var rulesFrom: String?
        @Option(help: "The ETag (version) the change is based on.") var ifMatch: String?
        func run() async throws {
            var body = JSONObject()
            if !services.isEmpty { body.append("services", .array(services.map(JSONValue.string))) }
            if !fingerprints.isEmpty { body.append("fingerprints", .array(fingerprints.map(JSONValue.string))) }
            if let rulesFrom { body.append("rulesFrom", .string(rulesFrom)) }
            if let moveToTeam { body.append("team", .string(moveToTeam)) }
            let response = try await remote.client.send(
                .patch, APIClient.path("v1", "apps", appID), body: .object(body), headers: ifMatchHeader(ifMatch))
            try remote.show(response, as: Apps.App.self, Apps.fields)
        }
    }

    struct Delete: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var appID: String
        @Option(help: "The ETag (version) the deletion is based on.") var ifMatch: String?
        func run() async throws {
            _ = try await remote.client.send(
                .delete, APIClient.path("v1", "apps", appID), headers: ifMatchHeader(ifMatch))
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
    @Option(help: "developer (bypasses Apple's CDN on development devices), managed, or developer+managed.") var mode:
        String?
    @Flag(help: "Print an .entitlements property list.") var plist = false
    @Option(help: "Only this environment's domains, for the app's build there.") var env: String?
    func run() async throws {
        let response = try await remote.client.send(
            .get, APIClient.path("v1", "apps", appID, "entitlements"), query: [("mode", mode), ("env", env)])
        try remote.show(response, as: Components.Schemas.Entitlements.self) { entitlements in
            plist ? [entitlements.plist] : entitlements.associatedDomains
        }
    }
}
