import AASAModel
import ArgumentParser

struct Expectations: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Golden URLs: what must open (or not open) a URL on a domain; every change that breaks one is refused.",
        subcommands: [List.self, Add.self, Delete.self, Check.self]
    )

    static func path(_ host: String, _ rest: String...) -> String {
        APIClient.path(["v1", "domains", host, "expectations"] + rest)
    }

    static func target(_ json: JSONValue) -> String {
        let kind = Table.value(json, "kind")
        return kind == "opensNone"
            ? "opens no app"
            : kind == "notApp" ? "never \(Table.value(json, "appID"))" : "opens \(Table.value(json, "appID"))"
    }

    struct List: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        func run() async throws {
            try remote.show(try await remote.client.send(.get, Expectations.path(host))) { json in
                let items = json.objectValue?["items"]?.arrayValue ?? []
                return Table.align(
                    [["ID", "TEAM", "URL", "EXPECTS", "SOURCE", "HOLDS"]]
                        + items.map { item in
                            [
                                Table.value(item, "id"), Table.value(item, "team"), Table.value(item, "url"),
                                Expectations.target(item),
                                Table.value(item, "source"),
                                item.objectValue?["holdsInDraft"]?.boolValue == false ? "broken (forced)" : "yes",
                            ]
                        })
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a golden URL (422 if it does not hold in the draft today).",
            discussion:
                """
                Examples:\n  aasactl expectations add example.com https://example.com/shop/1 --opens \
                ABCDE12345.com.example.shop\n
                """
                    + "  aasactl expectations add example.com https://example.com/account/login --opens-none")
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        @Argument var url: String
        @Option(help: "This app (your team's) must open the URL.") var opens: String?
        @Flag(help: "No app may open the URL.") var opensNone = false
        @Option(help: "This app must never open the URL.") var notApp: String?
        @Flag(help: "Check at publish and rollback only (default: at every change).") var published = false
        @Option var description: String?
        @Option(help: "Admins: whose expectation it is.") var team: String?
        func validate() throws {
            guard [opens != nil, opensNone, notApp != nil].filter({ $0 }).count == 1 else {
                throw ValidationError("give exactly one of --opens APP, --opens-none, --not-app APP")
            }
        }
        func run() async throws {
            var body: JSONObject = ["url": .string(url), "source": .string(published ? "published" : "draft")]
            if let opens {
                body.append("kind", .string("opens"))
                body.append("appID", .string(opens))
            }
            if opensNone { body.append("kind", .string("opensNone")) }
            if let notApp {
                body.append("kind", .string("notApp"))
                body.append("appID", .string(notApp))
            }
            if let description { body.append("description", .string(description)) }
            if let team { body.append("team", .string(team)) }
            let response = try await remote.client.send(.post, Expectations.path(host), body: .object(body))
            try remote.show(response) { json in
                Table.fields(
                    json,
                    [("ID", "id"), ("Team", "team"), ("URL", "url"), ("Source", "source"), ("Version", "version")])
                    + ["Expects: " + Expectations.target(json)]
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        @Argument var id: String
        @Option(help: "The ETag (version) the change is based on.") var ifMatch: String?
        func run() async throws {
            _ = try await remote.client.send(.delete, Expectations.path(host, id), headers: ifMatchHeader(ifMatch))
            remote.say("Deleted expectation \(id) on \(host).")
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run every golden URL against the draft and the published revision; exit 1 if any is broken.")
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        func run() async throws {
            let response = try await remote.client.send(.get, Expectations.path(host, "check"))
            try remote.show(response) { json in
                let items = json.objectValue?["items"]?.arrayValue ?? []
                func cell(_ outcome: JSONValue?) -> String {
                    guard let outcome else { return "-" }
                    let opener = outcome.objectValue?["appID"]?.stringValue ?? "no app"
                    return (outcome.objectValue?["holds"]?.boolValue == true ? "ok" : "BROKEN") + " (\(opener))"
                }
                return Table.align(
                    [["TEAM", "URL", "EXPECTS", "DRAFT", "PUBLISHED"]]
                        + items.map { item in
                            let e = item.objectValue?["expectation"] ?? .null
                            return [
                                Table.value(e, "team"), Table.value(e, "url"), Expectations.target(e),
                                cell(item.objectValue?["draft"]), cell(item.objectValue?["published"]),
                            ]
                        }) + [
                        """
                        \(Table.value(json, "brokenInDraft")) broken in the draft, \
                        \(Table.value(json, "brokenWhenPublished")) in the published revision
                        """
                    ]
            }
            let json = try response.json()
            if Table.value(json, "brokenInDraft") != "0" || Table.value(json, "brokenWhenPublished") != "0" {
                throw ExitCode(1)
            }
        }
    }
}

struct Guardrails: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "The organisation's guardrails (or one domain's): protected paths and budgets. Changes are for admins.",
        subcommands: [Show.self, Set.self]
    )

    static func path(_ host: String?) -> String {
        host.map { APIClient.path("v1", "domains", $0, "guardrails") } ?? "/v1/guardrails"
    }

    static func fields(_ json: JSONValue) -> [String] {
        Table.fields(
            json,
            [
                ("Protected paths", "protectedPaths"), ("Max rules per team", "maxRulesPerTeam"),
                ("Max bytes per team", "maxBytesPerTeam"), ("Version", "version"),
            ])
    }

    struct Show: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Option(help: "A domain's own guardrails instead of the organisation's.") var host: String?
        func run() async throws {
            try remote.show(try await remote.client.send(.get, Guardrails.path(host)), Guardrails.fields)
        }
    }

    struct Set: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Option(help: "A domain's own guardrails instead of the organisation's.") var host: String?
        @Option(name: .customLong("protect"), help: "A path pattern no app may open, e.g. /account/*; repeat.")
        var protectedPaths: [String] = []
        @Option var maxRulesPerTeam: Int?
        @Option var maxBytesPerTeam: Int?
        @Option(help: "The ETag (version) the change is based on.") var ifMatch: String?
        func run() async throws {
            var body: JSONObject = ["protectedPaths": .array(protectedPaths.map(JSONValue.string))]
            if let maxRulesPerTeam { body.append("maxRulesPerTeam", .number(String(maxRulesPerTeam))) }
            if let maxBytesPerTeam { body.append("maxBytesPerTeam", .number(String(maxBytesPerTeam))) }
            try remote.show(
                try await remote.client.send(
                    .put, Guardrails.path(host), body: .object(body), headers: ifMatchHeader(ifMatch)),
                Guardrails.fields)
        }
    }
}

/// The kill switch: `aasactl suspend TEAM --host HOST --reason …` and `aasactl resume`.
struct Suspend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Take a team's apps out of a domain's file (or every domain's, --host '*') and publish at once (admin).")
    @OptionGroup var remote: RemoteOptions
    @Argument var team: String
    @Option(help: "The domain, or * for every domain.") var host: String
    @Option var reason: String
    func run() async throws {
        let response = try await remote.client.send(
            .post, APIClient.path("v1", "domains", host, "suspensions"),
            body: .object(["team": .string(team), "reason": .string(reason)]))
        try remote.show(response, Suspend.published)
    }

    static func published(_ json: JSONValue) -> [String] {
        (json.objectValue?["published"]?.arrayValue ?? []).map {
            "\(Table.value($0, "host")): revision \(Table.value($0, "revision"))"
                + ($0.objectValue?["created"]?.boolValue == true ? " published" : " (unchanged)")
        }
    }
}

struct Resume: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Put a suspended team's apps back and publish (admin).")
    @OptionGroup var remote: RemoteOptions
    @Argument var team: String
    @Option(help: "The domain, or * for every domain.") var host: String
    func run() async throws {
        try remote.show(
            try await remote.client.send(.delete, APIClient.path("v1", "domains", host, "suspensions", team)),
            Suspend.published)
    }
}
