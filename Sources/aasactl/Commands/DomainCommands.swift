import AASAAPI
import AASAModel
import ArgumentParser

struct Domains: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Domains, their aliases, web roots and document settings (changes are for admins).",
        subcommands: [List.self, Show.self, Create.self, Update.self, Delete.self]
    )

    typealias Domain = Components.Schemas.Domain

    static func fields(_ domain: Domain) -> [String] {
        let fields: [(label: String, cell: (Domain) -> String)] = [
            ("Host", { ContractAnswer.cell($0.host) }), ("Environment", { ContractAnswer.cell($0.environment) }),
            ("Unicode", { ContractAnswer.cell($0.unicodeHost) }),
            ("Aliases", { ContractAnswer.cell($0.aliases) }), ("Web roots", { ContractAnswer.cell($0.webRoots) }),
            ("Defaults", { ContractAnswer.cell(object: $0.defaults) }),
            ("Variables", { ContractAnswer.cell(object: $0.substitutionVariables) }),
            ("Auto-publish", { ContractAnswer.cell($0.autoPublish) }),
            ("Legacy root path", { ContractAnswer.cell($0.legacyRootPath) }),
            ("Current revision", { ContractAnswer.cell($0.currentRevision) }),
            ("Version", { ContractAnswer.cell($0.version) }),
        ]
        return Table.fields(domain, fields) + Table.findings(domain.warnings, heading: "Warnings:")
    }

    /// The settings `create` and `update` share; only what is given is sent.
    struct Settings: ParsableArguments {
        @Option(name: .customLong("alias"), help: "An alias host; repeat. Replaces the list.") var aliases: [String] =
            []
        @Flag(help: "Remove every alias.") var noAliases = false
        @Option(name: .customLong("web-root"), help: "An absolute web root directory; repeat. Replaces the list.")
        var webRoots: [String] = []
        @Option(
            name: .customLong("variable"), help: "NAME=value1,value2 (substitution variable); repeat. Replaces the set."
        )
        var variables: [String] = []
        @Option(help: "applinks.defaults.caseSensitive (true or false).") var caseSensitive: Bool?
        @Option(help: "applinks.defaults.percentEncoded (true or false).") var percentEncoded: Bool?
        @Option(help: "Publish after every valid change (true or false).") var autoPublish: Bool?
        @Option(help: "Also write <root>/apple-app-site-association (true or false).") var legacyRootPath: Bool?
        @Option(help: "The domain's environment (its files name that environment's builds).") var env: String?

        func apply(to body: inout JSONObject) throws {
            if !aliases.isEmpty || noAliases { body.append("aliases", .array(aliases.map(JSONValue.string))) }
            if !webRoots.isEmpty { body.append("webRoots", .array(webRoots.map(JSONValue.string))) }
            if !variables.isEmpty {
                var object = JSONObject()
                for v in variables {
                    guard let eq = v.firstIndex(of: "=") else {
                        throw ValidationError("--variable takes NAME=value1,value2")
                    }
                    let values = v[v.index(after: eq)...].split(separator: ",", omittingEmptySubsequences: false).map {
                        JSONValue.string(String($0))
                    }
                    object.append(String(v[..<eq]), .array(values))
                }
                body.append("substitutionVariables", .object(object))
            }
            if caseSensitive != nil || percentEncoded != nil {
                var defaults = JSONObject()
                if let caseSensitive { defaults.append("caseSensitive", .bool(caseSensitive)) }
                if let percentEncoded { defaults.append("percentEncoded", .bool(percentEncoded)) }
                body.append("defaults", .object(defaults))
            }
            if let autoPublish { body.append("autoPublish", .bool(autoPublish)) }
            if let legacyRootPath { body.append("legacyRootPath", .bool(legacyRootPath)) }
            if let env { body.append("environment", .string(env)) }
        }
    }

    struct List: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        func run() async throws {
            try remote.show(try await remote.client.sendAllPages("/v1/domains"), as: Components.Schemas.DomainList.self)
            {
                Table.rows(
                    $0.items,
                    [
                        ("HOST", { ContractAnswer.cell($0.host) }), ("ALIASES", { ContractAnswer.cell($0.aliases) }),
                        ("REVISION", { ContractAnswer.cell($0.currentRevision) }),
                        ("AUTO", { ContractAnswer.cell($0.autoPublish) }),
                        ("WEB ROOTS", { ContractAnswer.cell($0.webRoots) }),
                    ])
            }
        }
    }

    struct Show: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        func run() async throws {
            try remote.show(
                try await remote.client.send(.get, APIClient.path("v1", "domains", host)), as: Domains.Domain.self,
                Domains.fields)
        }
    }

    struct Create: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        @OptionGroup var settings: Settings
        func run() async throws {
            var body: JSONObject = ["host": .string(host)]
            try settings.apply(to: &body)
            try remote.show(
                try await remote.client.send(.post, "/v1/domains", body: .object(body)), as: Domains.Domain.self,
                Domains.fields)
        }
    }

    struct Update: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        @OptionGroup var settings: Settings
        @Option(help: "The ETag (version) the change is based on.") var ifMatch: String?
        func run() async throws {
            var body = JSONObject()
            try settings.apply(to: &body)
            let response = try await remote.client.send(
                .patch, APIClient.path("v1", "domains", host), body: .object(body), headers: ifMatchHeader(ifMatch))
            try remote.show(response, as: Domains.Domain.self, Domains.fields)
        }
    }

    struct Delete: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        @Option(help: "The ETag (version) the deletion is based on.") var ifMatch: String?
        func run() async throws {
            _ = try await remote.client.send(
                .delete, APIClient.path("v1", "domains", host), headers: ifMatchHeader(ifMatch))
            remote.say("Deleted domain \(host).")
        }
    }
}
