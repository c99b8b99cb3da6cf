import AASAModel
import ArgumentParser

/// `aasactl validate -f aasa.yaml`: the checks a pull request can run without a server or a
/// token: the manifest's shape, app IDs, and each domain's rules as Apple reads them (pattern
/// syntax, keys, shadowed rules), rendered as this team's part of each domain's file. What only
/// the server knows (grants, other teams' rules, domain settings) is left to `plan`.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a manifest offline: shape, app IDs and Apple's rules for each domain's rules.",
        discussion: "Exit status: 0 valid (warnings allowed), 1 errors."
    )

    @Option(name: [.short, .customLong("file")], help: "The manifest (YAML or JSON); - reads standard input.")
    var file: String

    func run() throws {
        let manifest = try ManifestFile.load(file)
        var errors = 0
        func report(_ severity: String, _ place: String, _ message: String) {
            CLIOutput.print("\(file): \(severity): \(place): \(message)")
        }
        let declared = Set(manifest.apps.map(\.appID))
        for app in manifest.apps {
            if let problem = AppID.problem(app.appID) {
                errors += 1
                report("error", "apps[\(JSONWriter.quoted(app.appID))]", problem)
            }
        }
        for (d, domain) in manifest.domains.enumerated() {
            if (try? HostName.normalized(domain.host)) == nil {
                errors += 1
                report("error", "domains[\(JSONWriter.quoted(domain.host))]", "not a host name")
            }
            for app in domain.apps where !declared.contains(app.appID) {
                errors += 1
                report(
                    "error", "domains[\(JSONWriter.quoted(domain.host))][\(JSONWriter.quoted(app.appID))]",
                    "the app is not listed under apps")
            }
            let withRules = domain.apps.indices.filter { !domain.apps[$0].rules.isEmpty }
            let entries = withRules.map { domain.apps[$0] }
            let details = entries.map { app -> JSONValue in
                .object(["appIDs": .array([.string(app.appID)]), "components": .array(app.rules.map(Self.withoutID))])
            }
            let json: JSONValue = .object(["applinks": .object(["details": .array(details)])])
            let parsed = AASAParser.read(json)
            var diagnostics = parsed.diagnostics
            if let document = parsed.document {
                let bytes = AASARenderer.render(document)
                let host = (try? HostName.normalized(domain.host)) ?? domain.host
                for found in AASAValidator.validate(
                    document, servedByteCount: bytes.count, options: .init(analyzeRules: true, host: host))
                where !diagnostics.contains(found) { diagnostics.append(found) }
            }
            for diagnostic in diagnostics {
                let place =
                    Self.bodyPointer(diagnostic.path, domain: d, apps: withRules).map(manifest.describe)
                    ?? "domains[\(JSONWriter.quoted(domain.host))] \(diagnostic.path)"
                if diagnostic.severity == .error { errors += 1 }
                report(
                    diagnostic.severity == .error ? "error" : "warning", place,
                    "\(diagnostic.message) [\(diagnostic.code.rawValue)]")
            }
        }
        if errors > 0 { throw ExitCode(1) }
        CLIOutput.print(
            """
            \(file): valid (\(manifest.apps.count) app(s), \(manifest.domains.count) domain(s)); grants and other \
            teams' rules are checked by aasactl plan.
            """
        )
    }

    /// The service's `id` is not an Apple key; the server strips it the same way.
    static func withoutID(_ rule: JSONValue) -> JSONValue {
        guard var object = rule.objectValue else { return rule }
        object.members.removeAll { $0.key == "id" }
        return .object(object)
    }

    /// `/applinks/details/i/components/k/…` as the pointer into the API body that the same rule
    /// has (`/domains/d/apps/j/rules/k/…`), so `ManifestFile.describe` names it as `plan` does.
    /// - Parameter apps: the domain's app indices, in the order of the document's `details`.
    static func bodyPointer(_ pointer: JSONPointer, domain: Int, apps: [Int]) -> String? {
        let t = pointer.tokens
        guard t.count >= 3, t[0] == "applinks", t[1] == "details", let i = Int(t[2]), apps.indices.contains(i) else {
            return nil
        }
        var tokens = ["domains", String(domain), "apps", String(apps[i])]
        if t.count >= 5, t[3] == "components" { tokens += ["rules"] + t.dropFirst(4) }
        return JSONPointer(tokens: tokens).description
    }
}
