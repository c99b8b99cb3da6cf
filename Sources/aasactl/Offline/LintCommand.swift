import AASAModel
import ArgumentParser

struct Lint: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check files against Apple's rules (or Google's, for assetlinks.json).",
        discussion: """
            A file named assetlinks.json (or any file with --android) is checked as a Digital Asset \
            Links statement list with Dynamic App Links rules (codes L001…L070, docs/assetlinks-spec.md).
            Exit status: 0 when no file has errors (warnings allowed), 1 when any has errors, 2 on usage \
            errors.
            With --json, one object per file and line:
              {"file": …, "valid": bool, "errors": [{"code", "path", "message"}], "warnings": [...]}
            """
    )

    @Flag(help: "One JSON object per file and line.")
    var json = false

    @Flag(help: "Skip shadowing, overlap and paths-vs-components analysis.")
    var noAnalysis = false

    @Flag(help: "Check the files as assetlinks.json (Android), whatever their names.")
    var android = false

    @Argument(help: "Files to check; - reads standard input.")
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one file (or - for standard input)") }
    }

    func run() throws {
        var anyErrors = false
        for file in files {
            let bytes = try CLIOutput.read(file)
            if android || file.hasSuffix("assetlinks.json") {
                anyErrors = lintAssetLinks(bytes, file: file) || anyErrors
                continue
            }
            let report = AASALinter.lint(bytes, options: .init(analyzeRules: !noAnalysis))
            anyErrors = anyErrors || !report.isValid
            if json {
                CLIOutput.json(report.jsonValue(file: file))
            } else {
                let verdict = report.isValid ? "valid" : "invalid"
                CLIOutput.print(
                    "\(file): \(verdict) (\(report.errors.count) errors, \(report.warnings.count) warnings)")
                for d in report.diagnostics { CLIOutput.print("  \(d)") }
            }
        }
        if anyErrors { throw ExitCode(1) }
    }

    /// True when the file has errors.
    private func lintAssetLinks(_ bytes: [UInt8], file: String) -> Bool {
        let diagnostics = AssetLinksValidator.validate(bytes)
        let errors = diagnostics.filter { $0.severity == .error }
        let warnings = diagnostics.filter { $0.severity == .warning }
        if json {
            func items(_ list: [AssetLinksDiagnostic]) -> JSONValue {
                .array(
                    list.map {
                        .object([
                            "code": .string($0.code.rawValue), "path": .string($0.path.description),
                            "message": .string($0.message),
                        ])
                    })
            }
            CLIOutput.json(
                .object([
                    "file": .string(file), "valid": .bool(errors.isEmpty), "errors": items(errors),
                    "warnings": items(warnings),
                ]))
        } else {
            CLIOutput.print(
                """
                \(file): \(errors.isEmpty ? "valid" : "invalid") assetlinks.json (\(errors.count) errors, \
                \(warnings.count) warnings)
                """
            )
            for d in diagnostics { CLIOutput.print("  \(d)") }
        }
        return !errors.isEmpty
    }
}
