import AASAModel
import ArgumentParser

/// `aasactl google HOST [--check]`: what Google's Digital Asset Links API says of each package.
struct Google: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            """
            What Google's Digital Asset Links API says of each Android package of the domain (verified, stale, \
            not-linked, error), with its history; exit 1 unless every package is verified.
            """)
    @OptionGroup var remote: RemoteOptions
    @Argument var host: String
    @Flag(help: "Ask Google now (a write token) instead of reporting the monitor's last check.") var check = false
    func run() async throws {
        let path = APIClient.path("v1", "domains", host, "google") + (check ? "/check" : "")
        let response = try await remote.client.send(check ? .post : .get, path)
        let json = try response.json()
        try remote.show(response) { json in
            (json.objectValue?["packages"]?.arrayValue ?? []).map {
                "\(Table.value($0, "package")): \(Table.value($0, "state")): \(Table.value($0, "message"))"
            }
                + (json.objectValue?["history"]?.arrayValue ?? []).map {
                    "  \(Table.value($0, "at")) \(Table.value($0, "package")) \(Table.value($0, "state")) "
                        + "(revision \(Table.value($0, "revision")))"
                }
        }
        let packages = json.objectValue?["packages"]?.arrayValue ?? []
        if packages.contains(where: { Table.value($0, "state") != "verified" }) { throw ExitCode(1) }
    }
}
