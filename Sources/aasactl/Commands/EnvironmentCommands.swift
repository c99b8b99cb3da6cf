import AASAAPI
import AASAModel
import ArgumentParser
import OpenAPIRuntime

/// `aasactl environments`: the organisation's environments in promotion order.
struct Environments: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Environments in promotion order (dev → staging → prod); the last is production.",
        subcommands: [List.self, Set.self])

    static func rows(_ list: Components.Schemas.EnvironmentList) -> [String] {
        Table.rows(
            list.items,
            [
                ("ENVIRONMENT", { ContractAnswer.cell($0.name) }),
                ("PRODUCTION", { ContractAnswer.cell($0.production) }),
                ("DOMAINS", { ContractAnswer.cell($0.domainCount) }),
            ])
    }

    struct List: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        func run() async throws {
            try remote.show(
                try await remote.client.send(.get, APIClient.path("v1", "environments")),
                as: Components.Schemas.EnvironmentList.self, Environments.rows)
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the list (admin): new names are added, missing ones removed (refused while in use).")
        @OptionGroup var remote: RemoteOptions
        @Argument(help: "The environments, in promotion order.") var names: [String]
        func run() async throws {
            let response = try await remote.client.send(
                .put, APIClient.path("v1", "environments"),
                body: .object(["environments": .array(names.map(JSONValue.string))]))
            try remote.show(response, as: Components.Schemas.EnvironmentList.self, Environments.rows)
        }
    }
}

/// `aasactl builds`: what an app is in each environment.
struct Builds: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "An app's builds: its app ID (or package) and signing keys per environment.",
        subcommands: [Show.self, Set.self])

    static func lines(_ list: Components.Schemas.BuildList) -> [String] {
        list.builds.map { build in
            var line = "\(build.environment)\t\(build.appID)"
            for f in build.fingerprints ?? [] { line += "\t\(f.label)=\(f.sha256)" }
            if build.playSigningAbsent == true { line += "\t(no play-signing key, acknowledged)" }
            return line
        }
    }

    struct Show: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var appID: String
        func run() async throws {
            try remote.show(
                try await remote.client.send(.get, APIClient.path("v1", "apps", appID, "builds")),
                as: Components.Schemas.BuildList.self, lines)
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the app's builds; every domain naming the app is judged again.")
        @OptionGroup var remote: RemoteOptions
        @Argument var appID: String
        @Option(name: .customLong("build"), help: "ENV=APPID (the build's app ID or package); repeat.")
        var builds: [String] = []
        @Option(
            name: .customLong("key"), help: "An Android build's key: ENV=SHA256@label (play-signing, upload, debug...)."
        )
        var keys: [String] = []
        @Option(help: "An Android production build without a Play App Signing key: ENV; repeat.")
        var playSigningAbsent: [String] = []
        @Option(help: "The ETag (version) the change is based on.") var ifMatch: String?

        func run() async throws {
            var items: [JSONValue] = []
            for build in builds {
                let (environment, id) = try Self.split(build, "--build takes ENV=APPID")
                var item: JSONObject = ["environment": .string(environment), "appID": .string(id)]
                let fingerprints = try keys.compactMap { key -> JSONValue? in
                    let (env, value) = try Self.split(key, "--key takes ENV=SHA256@label")
                    guard env == environment else { return nil }
                    guard let at = value.lastIndex(of: "@") else {
                        throw ValidationError("--key takes ENV=SHA256@label")
                    }
                    return .object([
                        "sha256": .string(String(value[..<at])),
                        "label": .string(String(value[value.index(after: at)...])),
                    ])
                }
                if !fingerprints.isEmpty { item.append("fingerprints", .array(fingerprints)) }
                if playSigningAbsent.contains(environment) { item.append("playSigningAbsent", .bool(true)) }
                items.append(.object(item))
            }
            let response = try await remote.client.send(
                .put, APIClient.path("v1", "apps", appID, "builds"), body: .object(["builds": .array(items)]),
                headers: ifMatchHeader(ifMatch))
            try remote.show(response, as: Components.Schemas.BuildList.self, Builds.lines)
        }

        static func split(_ s: String, _ usage: String) throws -> (String, String) {
            guard let eq = s.firstIndex(of: "=") else { throw ValidationError(usage) }
            return (String(s[..<eq]), String(s[s.index(after: eq)...]))
        }
    }
}

/// `aasactl promote --from staging --to prod`: the plan, then with `--apply` the promotion.
struct Promote: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            """
            Bring the rules the source environment's domains publish to the paired domains of a later one (admin). \
            Without --apply, the plan; exits 2 when it would change something.
            """)
    @OptionGroup var remote: RemoteOptions
    @Option var from: String
    @Option var to: String
    @Option(
        name: .customLong("domain"),
        help:
            "A target host, or SOURCE=TARGET; repeat. Default: every target whose host is the source's less its label.")
    var domains: [String] = []
    @Flag(help: "Take the source domains' drafts where they are not published.") var takeDrafts = false
    @Flag(help: "Promote (publish the target domains).") var apply = false
    @Option(help: "The reason recorded in the new revisions.") var reason: String?

    func run() async throws {
        var body: JSONObject = ["from": .string(from), "to": .string(to)]
        if !domains.isEmpty { body.append("domains", .array(domains.map(JSONValue.string))) }
        if takeDrafts { body.append("takeDrafts", .bool(true)) }
        if apply { body.append("apply", .bool(true)) }
        if let reason { body.append("reason", .string(reason)) }
        let response = try await remote.client.send(.post, APIClient.path("v1", "promotions"), body: .object(body))
        let promotion = try response.decode(Components.Schemas.Promotion.self)
        try remote.show(response, promotion, Self.lines)
        let changes = promotion.domains.contains { !$0.apps.isEmpty }
        if !apply && changes { throw ExitCode(2) }
    }

    static func lines(_ promotion: Components.Schemas.Promotion) -> [String] {
        var out: [String] = []
        for domain in promotion.domains {
            let revision = domain.sourceRevision.map { "revision \($0)" } ?? "draft"
            var head = "\(domain.target) ← \(domain.source) \(revision)"
            if domain.fromDraft { head += " (draft)" }
            if let new = domain.revision { head += ": published revision \(new)" }
            out.append(head)
            let rule = { (component: OpenAPIObjectContainer) in
                ContractAnswer.json(component).map { JSONWriter().string($0) } ?? "?"
            }
            for app in domain.apps {
                out.append("  \(app.appID): +\(app.gained.count) −\(app.lost.count) rules")
                out += app.gained.map { "    + \(rule($0))" } + app.lost.map { "    - \(rule($0))" }
            }
            // The diff is AASAModel's `DocumentDiff`, free-form in the contract: read as its JSON.
            let diff = domain.diff.flatMap(ContractAnswer.json)
            for change in diff?.objectValue?["openerChanges"]?.arrayValue ?? [] {
                let c = change.objectValue ?? [:]
                out.append(
                    "  \(c["url"]?.stringValue ?? "?"): \(c["before"]?.stringValue ?? "no app") → "
                        + (c["after"]?.stringValue ?? "no app"))
            }
        }
        for host in promotion.unpaired {
            out.append("\(host): no source domain in \(promotion.from), left as it is")
        }
        if out.isEmpty { out.append("Nothing to promote.") }
        return out
    }
}
