import AASAModel
import ArgumentParser

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the canonical form of a file.",
        discussion: """
            Same document, same bytes: fixed key order, UTF-8, details as an array. --legacy adds \
            apps: [], appID per entry and paths for iOS 12 and older (what cannot be expressed is \
            reported on standard error). Exit status 1 when the file is not a document.
            """
    )

    @Flag(help: "Also write the keys iOS 12 and older read.")
    var legacy = false

    @Flag(help: "Indent by two spaces.")
    var pretty = false

    @Argument(help: "The AASA file; - reads standard input.")
    var file: String

    func run() throws {
        let parsed = AASAParser.parse(try CLIOutput.read(file))
        guard let document = parsed.document else {
            for d in parsed.diagnostics { CLIOutput.error("\(file): \(d)") }
            throw ExitCode(1)
        }
        if legacy {
            for limitation in AASARenderer.legacyLimitations(document) { CLIOutput.error("note: \(limitation)") }
        }
        var bytes = AASARenderer.render(document, options: .init(legacy: legacy, pretty: pretty))
        if !pretty { bytes.append(0x0A) }
        CLIOutput.write(bytes)
    }
}
