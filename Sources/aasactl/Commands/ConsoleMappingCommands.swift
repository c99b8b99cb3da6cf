import AASAModel
import ArgumentParser
import Foundation

/// `aasactl oidc console-mappings`: which identity-provider groups give which team and role in the
/// console (admin). `set` takes the whole list from a file, a manifest of the organisation's
/// console access kept beside its other config, and says what changes before it changes it.
struct ConsoleMappings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console-mappings",
        abstract: "Which identity-provider groups give which team and role in the console (admin).",
        subcommands: [Show.self, Set.self])

    static func line(_ mapping: JSONValue) -> String {
        let team = mapping.objectValue?["team"]?.stringValue
        let role = Table.value(mapping, "role")
        let gives = team.map { "\(role) on team \($0)" } ?? "organisation \(role)"
        return "\(Table.value(mapping, "provider")) group \(Table.value(mapping, "group")) -> \(gives)"
    }

    static func rows(_ json: JSONValue) -> [String] {
        (json.objectValue?["mappings"]?.arrayValue ?? []).map(line)
    }

    struct Show: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        func run() async throws {
            try remote.show(try await remote.client.send(.get, "/v1/oidc/console-mappings"), ConsoleMappings.rows)
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the mappings with those of a YAML or JSON file (a list, or {mappings: [...]}).",
            discussion: """
                Each mapping: {provider: corp, group: shop-developers, team: shop, role: write}; \
                {provider: corp, group: aasa-admins, role: admin} for the organisation's admins. \
                Prints what is added and removed; --dry-run stops there.
                """)
        @OptionGroup var remote: RemoteOptions
        @Option(name: .customLong("file"), help: "The mappings, as YAML or JSON.") var file: String
        @Flag(help: "Print what would change, change nothing.") var dryRun = false
        func run() async throws {
            let value = try YAMLJSON.parse(String(decoding: try CLIOutput.read(file), as: UTF8.self), file: file)
            guard let wanted = value.arrayValue ?? value.objectValue?["mappings"]?.arrayValue else {
                throw CLIFailure("\(file): a list of mappings, or {mappings: [...]}")
            }
            // Based on the version read here: a change made meanwhile is refused (412), not overwritten.
            let current = try await remote.client.send(.get, "/v1/oidc/console-mappings")
            let now = try current.json().objectValue?["mappings"]?.arrayValue ?? []
            let before = now.map(ConsoleMappings.line)
            let after = wanted.map(ConsoleMappings.line)
            for line in before where !after.contains(line) { remote.say("- \(line)") }
            for line in after where !before.contains(line) { remote.say("+ \(line)") }
            if before == after { remote.say("No change.") }
            guard !dryRun, before != after else { return }
            let response = try await remote.client.send(
                .put, "/v1/oidc/console-mappings", body: .object(["mappings": .array(wanted)]),
                headers: ifMatchHeader(current.header("ETag")))
            try remote.show(response, ConsoleMappings.rows)
        }
    }
}
