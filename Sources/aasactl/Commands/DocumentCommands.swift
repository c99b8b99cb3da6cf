import AASAAPI
import AASAModel
import ArgumentParser

struct Draft: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "document",
        abstract: "A domain's draft apple-app-site-association, rendered from its stored state (JSON).")
    @OptionGroup var remote: RemoteOptions
    @Argument var host: String
    func run() async throws {
        let response = try await remote.client.send(.get, APIClient.path("v1", "domains", host, "aasa"))
        if !remote.quiet { CLIOutput.write(response.body + [0x0A]) }
    }
}

struct Report: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Errors, warnings, shadowed rules and cross-team overlaps of a domain's draft.",
        discussion: "Exit status 1 when the draft has errors.")
    @OptionGroup var remote: RemoteOptions
    @Argument var host: String
    func run() async throws {
        let response = try await remote.client.send(.get, APIClient.path("v1", "domains", host, "report"))
        let report = try response.decode(Components.Schemas.Report.self)
        try remote.show(response, report) { report in
            var lines = ["\(report.host): \(report.valid ? "valid" : "INVALID"), \(report.byteCount) bytes"]
            lines += Table.findings(report.errors, heading: "Errors:")
            lines += Table.findings(report.warnings, heading: "Warnings:")
            for s in report.shadowed {
                lines.append(
                    "shadowed: \(s.rule.appID) \(s.rule.path) by \(s.shadowedBy.appID) \(s.shadowedBy.path)")
            }
            for o in report.overlaps {
                lines.append(
                    """
                    overlap\(o.crossTeam ? " (cross-team)" : ""): \(o.first.appID) \(o.first.path) and \
                    \(o.second.appID) \(o.second.path), e.g. \(o.exampleURL) opens \(ContractAnswer.cell(o.opener))
                    """
                )
            }
            return lines
        }
        if !report.valid { throw ExitCode(1) }
    }
}
