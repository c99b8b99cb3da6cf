import AASAAPI
import AASAModel
import ArgumentParser

/// `aasactl probe HOST`: the origin as Apple's fetcher meets it.
struct Probe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            """
            Fetch the domain's file from every host it is served for, as Apple's fetcher does; exit 1 on an error \
            finding.
            """,
        discussion:
            "Finding codes: P001 unreachable, P002 tls, P003 timeout, P010 status, P011 redirect, P012 too-large, "
                + """
                P020 content-type (a warning), P030 unparseable, P031 lint-errors, P040 stale-revision, P041 \
                unknown-bytes, P042 not-published.
                """
    )
    @OptionGroup var remote: RemoteOptions
    @Argument var host: String
    func run() async throws {
        let response = try await remote.client.send(.post, APIClient.path("v1", "domains", host, "probe"))
        let report = try response.decode(Components.Schemas.ProbeReport.self)
        try remote.show(response, report) { report in
            var lines: [String] = []
            for r in report.results {
                let status = r.status.map { String($0) } ?? "no answer"
                let revision = r.revision.map { "revision \($0)" } ?? "no revision"
                lines.append(
                    "\(ContractAnswer.cell(r.url)): \(status), \(revision), \(ContractAnswer.number(r.elapsedMs)) ms")
                for f in r.findings {
                    let what = "\(ContractAnswer.cell(f.code)) \(ContractAnswer.cell(f.name))"
                    lines.append("  \(what) (\(f.severity.rawValue)): \(ContractAnswer.cell(f.message))")
                }
            }
            return lines + [
                report.ok ? "ok: every origin serves the current revision" : "NOT OK: see the findings above"
            ]
        }
        if !report.ok { throw ExitCode(1) }
    }
}

/// `aasactl cdn HOST [--check]`: what Apple's CDN serves.
struct CDN: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "What Apple's CDN serves for the domain (converged, stale, absent, error), with its history.")
    @OptionGroup var remote: RemoteOptions
    @Argument var host: String
    @Flag(help: "Ask the CDN now (a write token) instead of reporting the monitor's last check.") var check = false
    func run() async throws {
        let path = APIClient.path("v1", "domains", host, "cdn") + (check ? "/check" : "")
        let response = try await remote.client.send(check ? .post : .get, path)
        try remote.show(response, as: Components.Schemas.CDNStatus.self) { cdn in
            ["\(cdn.host): \(cdn.state.rawValue): \(ContractAnswer.cell(cdn.message))"]
                + cdn.history.map {
                    "  \(ContractAnswer.text($0.at)) \(ContractAnswer.cell($0.state))"
                        + ($0.revision.map { " revision \($0)" } ?? "")
                }
        }
    }
}
