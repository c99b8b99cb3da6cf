import AASAAPI
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
        let view = try response.decode(Components.Schemas.GoogleView.self)
        try remote.show(response, view) { view in
            view.packages.map {
                "\(ContractAnswer.cell($0.package)): \($0.state.rawValue): \(ContractAnswer.cell($0.message))"
            }
                + view.history.map {
                    "  \(ContractAnswer.text($0.at)) \(ContractAnswer.cell($0.package)) "
                        + "\(ContractAnswer.cell($0.state)) (revision \($0.revision))"
                }
        }
        if view.packages.contains(where: { $0.state != .verified }) { throw ExitCode(1) }
    }
}
