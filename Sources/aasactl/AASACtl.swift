import ArgumentParser
import Foundation

@main
struct AASACtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aasactl",
        abstract: "Lint, match, render and compare apple-app-site-association files.",
        discussion: """
            Exit codes: 0 success; 1 a file has errors (lint) or a command failed; 2 usage error.
            """,
        subcommands: [Lint.self, Match.self, Render.self, Diff.self, Decide.self]
    )

    /// Usage errors exit with 2 (ArgumentParser's default is 64), as pipelines expect of lint tools.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                CLIOutput.error(fullMessage(for: error))
                CLIOutput.error("Run 'aasactl help' for usage.")
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
