import AASAModel
import ArgumentParser
import Foundation

enum OutputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case table, json
}

/// What every command that talks to `aasad` takes: where, as whom, and how to print.
/// Precedence: flags, then `AASA_SERVER`/`AASA_TOKEN`, then the profile (`--profile`,
/// `AASA_PROFILE`, or the one `aasactl login` made current).
struct RemoteOptions: ParsableArguments {
    @Option(help: "The aasad base URL (or AASA_SERVER).")
    var server: String?

    @Option(help: "A bearer token (or AASA_TOKEN). Prefer a profile: flags show in process lists.")
    var token: String?

    @Option(help: "A profile from `aasactl login` (or AASA_PROFILE).")
    var profile: String?

    @Option(name: [.short, .long], help: "table (for people) or json (the API's JSON, unchanged).")
    var output: OutputFormat = .table

    @Flag(name: [.short, .long], help: "Print nothing on success.")
    var quiet = false

    @Option(
        help: ArgumentHelp(
            "Admins: force a change past the domain policies (golden URLs, protected paths), for this reason.",
            discussion: "Sent as force=true&reason=… on the change; audited as policy.override."))
    var forceReason: String?

    func connection() throws -> (client: APIClient, team: String?) {
        let env = ProcessInfo.processInfo.environment
        let profiles = try Profiles.load()
        let name = profile ?? env["AASA_PROFILE"] ?? profiles.current
        let saved = name.flatMap { profiles.profiles[$0] }
        if let profile, saved == nil {
            throw CLIFailure("no profile \(profile) in \(Profiles.path); run aasactl login --profile \(profile)")
        }
        guard let server = server ?? env["AASA_SERVER"] ?? saved?.server else {
            throw CLIFailure("no server: pass --server, set AASA_SERVER, or run aasactl login")
        }
        let token = token ?? env["AASA_TOKEN"] ?? saved?.token
        let quiet = quiet
        var client = APIClient(server: server, token: token)
        client.forceReason = forceReason
        client.onRetry = { message in if !quiet { CLIOutput.error("aasactl: \(message)") } }
        // The profile's team only when the profile also supplied the token.
        let team = (self.token == nil && env["AASA_TOKEN"] == nil) ? saved?.team : nil
        return (client, team)
    }

    var client: APIClient { get throws { try connection().client } }

    /// The team a command is about: `--team`, the profile's team, or the team of the token in use
    /// as aasad knows it (`AASA_TOKEN` and `--token` too: CI and `aasactl login --oidc` pass a team's
    /// token that way, and were told it had no team while `whoami` named it).
    func team(_ explicit: String?) async throws -> String {
        if let explicit { return explicit }
        let (client, saved) = try connection()
        if let saved { return saved }
        if let team = try await client.send(.get, "/v1/whoami").json().objectValue?["team"]?.stringValue {
            return team
        }
        throw CLIFailure("name the team with --team: the token in use is an admin's, which belongs to no team")
    }

    /// Prints an answer: its bytes unchanged for `--output json`, else `table`'s lines.
    func show(_ response: APIResponse, _ table: (JSONValue) -> [String]) throws {
        if quiet { return }
        switch output {
        case .json: CLIOutput.write(response.body.last == 0x0A ? response.body : response.body + [0x0A])
        case .table:
            guard !response.body.isEmpty else { return }
            table(try response.json()).forEach(CLIOutput.print)
        }
    }

    /// For commands whose answer is "done" (204) or a message.
    func say(_ message: String) {
        if !quiet && output == .table { CLIOutput.print(message) }
    }
}
