import AASAModel
import ArgumentParser

struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare two files by meaning: rules per app, services, and URLs whose app changes.",
        discussion: "Exit status: 0 when the documents mean the same, 1 when they differ or one is unreadable."
    )

    @Flag(help: "Print a JSON object.")
    var json = false

    @Option(help: "Host used in the example URLs.")
    var host = "example.com"

    @Argument(help: "The old file.")
    var fileA: String

    @Argument(help: "The new file.")
    var fileB: String

    func run() throws {
        let a = try load(fileA), b = try load(fileB)
        let diff = DocumentDiff(from: a, to: b, host: host)
        if json { CLIOutput.json(diff.jsonValue) } else { diff.textLines.forEach(CLIOutput.print) }
        if !diff.isEmpty { throw ExitCode(1) }
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
