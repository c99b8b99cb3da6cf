import AASAModel
import ArgumentParser

struct Diff: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare two files by meaning: rules per app, services, and URLs whose app changes.",
        discussion: """
            Two files: `aasactl diff OLD NEW`. A domain's revisions on the server:
            `aasactl diff --domain HOST --from N [--to M|draft]` (the draft by default). \
            With --android the files are assetlinks.json, compared per app.
            Exit status: 0 when the documents mean the same, 1 when they differ or one is unreadable.
            """
    )

    @Flag(help: "Print a JSON object.")
    var json = false

    @Option(help: "Host used in the example URLs.")
    var host = "example.com"

    @Argument(help: "The old file.")
    var fileA: String?

    @Argument(help: "The new file.")
    var fileB: String?

    @Option(help: "A domain on the server: compare its revisions.")
    var domain: String?

    @Option(help: "With --domain: the older revision number.")
    var from: Int?

    @Option(help: "With --domain: a revision number, or draft.")
    var to = "draft"

    @Flag(help: "assetlinks.json files (or a domain's assetlinks.json revisions), compared per app.")
    var android = false

    @OptionGroup var remote: RemoteOptions

    func validate() throws {
        if domain == nil && (fileA == nil || fileB == nil) {
            throw ValidationError("name two files, or --domain HOST --from N")
        }
        if domain != nil && from == nil { throw ValidationError("--domain needs --from N") }
    }

    func run() async throws {
        if android { return try await runAndroid() }
        if let domain, let from {
            let response = try await remote.client.send(
                .get, APIClient.path("v1", "domains", domain, "diff"),
                query: [("from", String(from)), ("to", to)])
            let diff = try response.json().objectValue?["diff"] ?? .null
            if json {
                CLIOutput.json(diff)
            } else {
                try remote.show(response) { _ in DocumentDiff.textLines(json: diff) }
            }
            if diff.objectValue?["changed"]?.boolValue == true { throw ExitCode(1) }
            return
        }
        let a = try load(fileA!)
        let b = try load(fileB!)
        let diff = DocumentDiff(from: a, to: b, host: host)
        if json { CLIOutput.json(diff.jsonValue) } else { diff.textLines.forEach(CLIOutput.print) }
        if !diff.isEmpty { throw ExitCode(1) }
    }

    private func runAndroid() async throws {
        let diff: JSONValue
        var urlChanges: JSONValue = .array([])
        if let domain, let from {
            let response = try await remote.client.send(
                .get, APIClient.path("v1", "domains", domain, "assetlinks", "diff"),
                query: [("from", String(from)), ("to", to)])
            let answer = try response.json().objectValue
            diff = answer?["diff"] ?? .null
            urlChanges = answer?["urlChanges"] ?? .array([])
        } else {
            func load(_ file: String) throws -> AssetLinksDocument {
                let parsed = AssetLinksDocument.parse(try CLIOutput.read(file))
                guard let document = parsed.document else {
                    for d in parsed.diagnostics { CLIOutput.error("\(file): \(d)") }
                    throw ExitCode(1)
                }
                return document
            }
            let (a, b) = (try load(fileA!), try load(fileB!))
            diff = AssetLinksDiff(from: a, to: b).jsonValue
            // No host is at hand offline: the derived URLs are asked on a stand-in one.
            urlChanges = AndroidDecisionChanges(from: a, to: b, host: "example.com", maxChanges: 50).jsonValue
        }
        if json {
            CLIOutput.json(.object(["diff": diff, "urlChanges": urlChanges]))
        } else {
            (AssetLinksDiff.textLines(json: diff) + AndroidDecisionChanges.textLines(json: urlChanges))
                .forEach(CLIOutput.print)
        }
        if !(diff.arrayValue ?? []).isEmpty { throw ExitCode(1) }
    }

    func load(_ file: String) throws -> AASADocument {
        let parsed = AASAParser.parse(try CLIOutput.read(file))
        guard let document = parsed.document else {
            for d in parsed.diagnostics { CLIOutput.error("\(file): \(d)") }
            throw ExitCode(1)
        }
        return document
    }
}
