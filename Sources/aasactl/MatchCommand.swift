import AASAModel
import ArgumentParser

struct Match: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Which app opens each URL, by Apple's rules.",
        discussion: """
            For each URL: the app ID that opens it (the first app, in order of appearance, whose own
            decision is match), or none. With --json, an array of
              {"url", "appID": string|null, "detailsIndex": int|null, "componentIndex": int|null,
               "pathIndex": int|null, "excluded": bool}
            excluded is true when no app opens the URL and an exclude rule stopped at least one app.
            Exit status: 0 when the file was read (whatever the answers), 1 when it is not a document.
            """
    )

    @Flag(help: "Print a JSON array.")
    var json = false

    @Option(name: .long, help: "The AASA file; - reads standard input.")
    var file: String

    @Option(help: "The host the file is served for: URLs on other hosts open no app.")
    var domain: String?

    @Argument(help: "URLs (https://host/path?query#fragment) or bare paths (/path).")
    var urls: [String]

    func validate() throws {
        if urls.isEmpty { throw ValidationError("name at least one URL") }
    }

    func run() throws {
        let parsed = AASAParser.parse(try CLIOutput.read(file))
        guard let document = parsed.document else {
            for d in parsed.diagnostics { CLIOutput.error("\(file): \(d)") }
            throw ExitCode(1)
        }
        let matcher = AASAMatcher(document)
        let results = urls.map { (url: $0, resolution: matcher.resolve(url: $0, domain: domain)) }
        if json {
            CLIOutput.json(.array(results.map { $0.resolution.jsonValue(url: $0.url) }), pretty: false)
            return
        }
        for (url, r) in results {
            if let app = r.appID {
                CLIOutput.print("\(url) -> \(app) (\(r.rule.map { "rule \($0)" } ?? ""))")
            } else {
                CLIOutput.print("\(url) -> none\(r.excluded ? " (excluded)" : "")")
            }
        }
    }
}
