import AASAAPI
import AASAModel
import ArgumentParser

/// `aasactl passkeys …` (issue 52): a relying party's readiness, the origins its passkey server
/// must accept, a domain's related origins (`/.well-known/webauthn`) and an app's relying parties.
struct Passkeys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Passkeys: the three files of a relying party checked together, and the origins its server accepts.",
        subcommands: [Check.self, Origins.self, RelatedOrigins.self, Clients.self]
    )

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                """
                Whether each passkey client of RPID can sign in (draft, published, origin, Apple's CDN or Google), \
                with the fix; exit 1 when one is broken.
                """)
        @OptionGroup var remote: RemoteOptions
        @Argument(help: "The relying party ID (a host).") var rpID: String
        func run() async throws {
            let response = try await remote.client.send(.get, APIClient.path("v1", "relying-parties", rpID))
            let report = try response.decode(Components.Schemas.RelyingPartyReport.self)
            try remote.show(response, report, Check.lines)
            if report.clients.contains(where: { $0.verdict == .broken }) { throw ExitCode(1) }
        }

        static func lines(_ report: Components.Schemas.RelyingPartyReport) -> [String] {
            var lines = ["\(report.rpID)\(report.isDomain ? "" : " (not a domain of the registry)"):"]
            for client in report.clients {
                lines.append(
                    "  \(client.appID) (\(client.platform.rawValue), \(client.team)): \(client.verdict.rawValue)")
                for step in client.steps {
                    let mark = step.ok.map { $0 ? "ok" : "NO" } ?? "?"
                    lines.append("    \(step.name.rawValue): \(mark) \(step.detail)")
                }
                if let fix = client.fix { lines.append("    fix: \(fix)") }
            }
            for web in report.web {
                lines.append(
                    "  \(web.origin): \(web.inDraft ? "listed" : "not listed"), "
                        + "\(web.published ? "published" : "not published")")
            }
            return lines + Table.findings(report.warnings, heading: "Warnings:")
        }
    }

    struct Origins: AsyncParsableCommand {
        enum Format: String, ExpressibleByArgument, CaseIterable { case json, env, yaml }
        static let configuration = CommandConfiguration(
            abstract:
                """
                The origins RPID's passkey server must accept (its own, the related origins, one \
                android:apk-key-hash: per Android release key), for its configuration.
                """)
        @OptionGroup var remote: RemoteOptions
        @Argument(help: "The relying party ID (a host).") var rpID: String
        @Option(help: "json (an array), env (PASSKEY_ORIGINS=a,b), or yaml (origins: [..]).") var format: Format = .json
        func run() async throws {
            let response = try await remote.client.send(.get, APIClient.path("v1", "relying-parties", rpID, "origins"))
            let origins = try response.decode(Components.Schemas.RelyingPartyOrigins.self).origins.map(\.origin)
            switch format {
            case .json:
                CLIOutput.print(JSONWriter(style: .pretty).string(.array(origins.map(JSONValue.string))))
            case .env:
                CLIOutput.print("PASSKEY_ORIGINS=" + origins.joined(separator: ","))
            case .yaml:
                CLIOutput.print("origins:")
                for origin in origins { CLIOutput.print("  - " + JSONWriter.quoted(origin)) }
            }
        }
    }

    struct RelatedOrigins: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "related-origins",
            abstract: "The origins HOST's /.well-known/webauthn lists; add or remove one (published with the domain).")
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        @Option(help: "An origin to add (https://host[:port]).") var add: String?
        @Option(help: "An origin to remove.") var remove: String?
        @Option(help: "The list's ETag the change is based on.") var ifMatch: String?
        func run() async throws {
            let path = APIClient.path("v1", "domains", host, "related-origins")
            let response: APIResponse
            if let add {
                response = try await remote.client.send(
                    .post, path, body: .object(["origin": .string(add)]), headers: ifMatchHeader(ifMatch))
            } else if let remove {
                response = try await remote.client.send(
                    .delete, path, query: [("origin", remove)], headers: ifMatchHeader(ifMatch))
            } else {
                response = try await remote.client.send(.get, path)
            }
            try remote.show(response, as: Components.Schemas.RelatedOriginList.self) { list in
                ["\(list.host): \(list.labels.count) of 5 labels (\(list.labels.joined(separator: ", ")))"]
                    + Table.rows(
                        list.items,
                        [
                            ("ORIGIN", { $0.origin }), ("LABEL", { $0.label }),
                            ("TEAM", { $0.team ?? "(admin)" }),
                        ])
            }
        }
    }

    struct Clients: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The relying parties APP is a passkey client of; with RPIDs, replace them (--none: no more).")
        @OptionGroup var remote: RemoteOptions
        @Argument var app: String
        @Argument(help: ArgumentHelp("Relying party IDs (hosts).", valueName: "rp-id")) var rpIDs: [String] = []
        @Flag(help: "Mark the app a client of no relying party.") var none = false
        func run() async throws {
            let path = APIClient.path("v1", "apps", app, "passkeys")
            let response =
                rpIDs.isEmpty && !none
                ? try await remote.client.send(.get, path)
                : try await remote.client.send(
                    .put, path, body: .object(["relyingParties": .array(rpIDs.map(JSONValue.string))]))
            try remote.show(response, as: Components.Schemas.PasskeyClient.self) { client in
                [
                    client.appID + ": "
                        + (client.relyingParties.isEmpty ? "(none)" : client.relyingParties.joined(separator: ", "))
                ]
            }
        }
    }
}
