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
        let json = try response.json()
        try remote.show(response) { json in
            var lines = [
                """
                \(Table.value(json, "host")): \
                \(json.objectValue?["valid"]?.boolValue == true ? "valid" : "INVALID"), \
                \(Table.value(json, "byteCount")) bytes
                """
            ]
            lines += Table.findings(json.objectValue?["errors"], heading: "Errors:")
            lines += Table.findings(json.objectValue?["warnings"], heading: "Warnings:")
            for s in json.objectValue?["shadowed"]?.arrayValue ?? [] {
                lines.append(
                    """
                    shadowed: \(Table.value(s, "rule.appID")) \(Table.value(s, "rule.path")) by \
                    \(Table.value(s, "shadowedBy.appID")) \(Table.value(s, "shadowedBy.path"))
                    """
                )
            }
            for o in json.objectValue?["overlaps"]?.arrayValue ?? [] {
                let cross = o.objectValue?["crossTeam"]?.boolValue == true ? " (cross-team)" : ""
                lines.append(
                    """
                    overlap\(cross): \(Table.value(o, "first.appID")) \(Table.value(o, "first.path")) and \
                    \(Table.value(o, "second.appID")) \(Table.value(o, "second.path")), e.g. \
                    \(Table.value(o, "exampleURL")) opens \(Table.value(o, "opener"))
                    """
                )
            }
            return lines
        }
        if json.objectValue?["valid"]?.boolValue == false { throw ExitCode(1) }
    }
}
