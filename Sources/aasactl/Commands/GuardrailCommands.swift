import AASAAPI
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

    static func target(_ expectation: Components.Schemas.Expectation) -> String {
        target(kind: expectation.kind.rawValue, appID: expectation.appID)
    }

    /// What a golden URL expects, in words (`kind` as the contract spells it).
    static func target(kind: String, appID: String?) -> String {
        let app = ContractAnswer.cell(appID)
        return kind == "opensNone" ? "opens no app" : kind == "notApp" ? "never \(app)" : "opens \(app)"
    }

    struct List: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        func run() async throws {
            let response = try await remote.client.send(.get, Expectations.path(host))
            try remote.show(response, as: Components.Schemas.ExpectationList.self) { list in
                Table.align(
                    [["ID", "TEAM", "URL", "EXPECTS", "SOURCE", "HOLDS"]]
                        + list.items.map { item in
                            [
                                ContractAnswer.cell(item.id), ContractAnswer.cell(item.team),
                                ContractAnswer.cell(item.url), Expectations.target(item), item.source.rawValue,
                                item.holdsInDraft ? "yes" : "broken (forced)",
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
            try remote.show(response, as: Components.Schemas.Expectation.self) { e in
                Table.align([
                    ["ID:", ContractAnswer.cell(e.id)], ["Team:", ContractAnswer.cell(e.team)],
                    ["URL:", ContractAnswer.cell(e.url)], ["Source:", e.source.rawValue],
                    ["Version:", String(e.version)],
                ]) + ["Expects: " + Expectations.target(e)]
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
            let check = try response.decode(Components.Schemas.ExpectationCheck.self)
            try remote.show(response, check) { check in
                func cell(_ outcome: Components.Schemas.ExpectationOutcome?) -> String {
                    guard let outcome else { return "-" }
                    return (outcome.holds ? "ok" : "BROKEN") + " (\(outcome.appID ?? "no app"))"
                }
                return Table.align(
                    [["TEAM", "URL", "EXPECTS", "DRAFT", "PUBLISHED"]]
                        + check.items.map { item in
                            [
                                ContractAnswer.cell(item.expectation.team), ContractAnswer.cell(item.expectation.url),
                                Expectations.target(item.expectation), cell(item.draft), cell(item.published),
                            ]
                        }) + [
                        """
                        \(check.brokenInDraft) broken in the draft, \
                        \(check.brokenWhenPublished) in the published revision
                        """
                    ]
            }
            if check.brokenInDraft != 0 || check.brokenWhenPublished != 0 { throw ExitCode(1) }
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

    static func fields(_ g: Components.Schemas.Guardrails) -> [String] {
        Table.align([
            ["Protected paths:", ContractAnswer.cell(g.protectedPaths)],
            ["Max rules per team:", ContractAnswer.cell(g.maxRulesPerTeam)],
            ["Max bytes per team:", ContractAnswer.cell(g.maxBytesPerTeam)], ["Version:", String(g.version)],
        ])
    }

    struct Show: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Option(help: "A domain's own guardrails instead of the organisation's.") var host: String?
        func run() async throws {
            try remote.show(
                try await remote.client.send(.get, Guardrails.path(host)), as: Components.Schemas.Guardrails.self,
                Guardrails.fields)
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
                as: Components.Schemas.Guardrails.self, Guardrails.fields)
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
        try remote.show(response, as: Components.Schemas.SuspensionResult.self, Suspend.published)
    }

    static func published(_ result: Components.Schemas.SuspensionResult) -> [String] {
        result.published.map { "\($0.host): revision \($0.revision)" + ($0.created ? " published" : " (unchanged)") }
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
            as: Components.Schemas.SuspensionResult.self, Suspend.published)
    }
}
