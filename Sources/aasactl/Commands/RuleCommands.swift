import AASAModel
import ArgumentParser

struct Rules: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "An app's ordered rules on a domain (components entries, each with an ID).",
        subcommands: [List.self, Set.self, Add.self, Delete.self]
    )

    static func lines(_ json: JSONValue) -> [String] {
        let rules = json.objectValue?["rules"]?.arrayValue ?? []
        var rows = [["#", "ID", "RULE"]]
        for (i, rule) in rules.enumerated() {
            var component = rule.objectValue ?? [:]
            let id = component["id"]?.stringValue ?? "-"
            component.members.removeAll { $0.key == "id" }
            rows.append(["\(i)", id, JSONWriter().string(.object(component))])
        }
        return [
            """
            \(Table.value(json, "appID")) on \(Table.value(json, "host")) (team \(Table.value(json, "team")), \
            version \(Table.value(json, "version")))
            """
        ]
            + Table.align(rows) + Table.findings(json.objectValue?["warnings"], heading: "Warnings:")
    }

    static func path(_ host: String, _ appID: String) -> String {
        APIClient.path("v1", "domains", host, "apps", appID, "rules")
    }

    struct List: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        @Argument var appID: String
        func run() async throws {
            try remote.show(try await remote.client.send(.get, Rules.path(host, appID)), Rules.lines)
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the app's rules with those in a file.",
            discussion: "The file (YAML or JSON; - for standard input) is a list of rules, or an object with `rules`.")
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        @Argument var appID: String
        @Option(name: [.short, .long]) var file: String
        @Option(help: "The ETag (version) the change is based on.") var ifMatch: String?
        func run() async throws {
            let parsed = try YAMLJSON.parse(String(decoding: try CLIOutput.read(file), as: UTF8.self), file: file)
            let rules = parsed.arrayValue.map(JSONValue.array) ?? parsed.objectValue?["rules"]
            guard let rules else { throw CLIFailure("\(file): expected a list of rules or an object with `rules`") }
            let response = try await remote.client.send(
                .put, Rules.path(host, appID), body: .object(["rules": rules]), headers: ifMatchHeader(ifMatch))
            try remote.show(response, Rules.lines)
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Append one rule.")
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        @Argument var appID: String
        @Option(name: .customLong("path"), help: "The `/` pattern, e.g. /shop/*.") var pathPattern: String?
        @Option(help: "The `#` pattern.") var fragment: String?
        @Option(help: "The `?` pattern (whole query string).") var query: String?
        @Flag(help: "An exclude rule.") var exclude = false
        @Option(help: "caseSensitive (true or false).") var caseSensitive: Bool?
        @Option(help: "percentEncoded (true or false).") var percentEncoded: Bool?
        @Option var comment: String?
        @Option(help: "The whole rule as JSON instead, e.g. '{\"/\":\"/a/*\",\"?\":{\"id\":\"?*\"}}'.") var json:
            String?
        @Option(help: "The ETag (version) the change is based on.") var ifMatch: String?
        func run() async throws {
            var rule = JSONObject()
            if let json {
                guard let object = (try? JSONParser.parse(json))?.value.objectValue else {
                    throw ValidationError("--json takes a JSON object")
                }
                rule = object
            }
            if let pathPattern { rule.append("/", .string(pathPattern)) }
            if let query { rule.append("?", .string(query)) }
            if let fragment { rule.append("#", .string(fragment)) }
            if exclude { rule.append("exclude", .bool(true)) }
            if let caseSensitive { rule.append("caseSensitive", .bool(caseSensitive)) }
            if let percentEncoded { rule.append("percentEncoded", .bool(percentEncoded)) }
            if let comment { rule.append("comment", .string(comment)) }
            let response = try await remote.client.send(
                .post, Rules.path(host, appID), body: .object(rule), headers: ifMatchHeader(ifMatch))
            try remote.show(response, Rules.lines)
        }
    }

    struct Delete: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        @Argument var appID: String
        @Argument var ruleID: String
        @Option(help: "The ETag (version) the change is based on.") var ifMatch: String?
        func run() async throws {
            let response = try await remote.client.send(
                .delete, Rules.path(host, appID) + "/" + ruleID, headers: ifMatchHeader(ifMatch))
            try remote.show(response, Rules.lines)
        }
    }
}
