import AASAModel
import ArgumentParser

struct Lint: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check files against Apple's rules.",
        discussion: """
            Exit status: 0 when no file has errors (warnings allowed), 1 when any has errors, 2 on usage errors.
            With --json, one object per file and line:
              {"file": …, "valid": bool, "errors": [{"code", "path", "message"}], "warnings": [...]}
            """
    )

    @Flag(help: "One JSON object per file and line.")
    var json = false

    @Flag(help: "Skip shadowing, overlap and paths-vs-components analysis.")
    var noAnalysis = false

    @Argument(help: "Files to check; - reads standard input.")
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one file (or - for standard input)") }
    }

    func run() throws {
        var anyErrors = false
        for file in files {
            let bytes = try CLIOutput.read(file)
            let report = AASALinter.lint(bytes, options: .init(analyzeRules: !noAnalysis))
            anyErrors = anyErrors || !report.isValid
            if json {
                CLIOutput.json(report.jsonValue(file: file))
            } else {
                let verdict = report.isValid ? "valid" : "invalid"
                CLIOutput.print("\(file): \(verdict) (\(report.errors.count) errors, \(report.warnings.count) warnings)")
                for d in report.diagnostics { CLIOutput.print("  \(d)") }
            }
        }
        if anyErrors { throw ExitCode(1) }
    }
}
