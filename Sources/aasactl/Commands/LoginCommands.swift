import AASAAPI
import AASAModel
import ArgumentParser
import Foundation

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a token against a server and save both as a profile (file mode 0600).",
        discussion: """
            The token is read from standard input unless --token is given (a flag shows in process \
            lists). The profile becomes the current one; commands use it when no --server, --token, \
            AASA_SERVER or AASA_TOKEN is given. The file is $AASACTL_CONFIG, or \
            $XDG_CONFIG_HOME/aasactl/config.yaml, or ~/.config/aasactl/config.yaml.

            In a CI job, --oidc exchanges the job's OIDC ID token for a short-lived team token and \
            prints it as shell to eval, writing nothing to disk:
              login="$(aasactl login --oidc --server URL --audience AUD)"; eval "$login"        (GitHub)
              login="$(aasactl login --oidc --server URL --token-env VARIABLE)"; eval "$login"  (GitLab)
            """
    )

    @Option(help: "The aasad base URL, e.g. https://aasa.internal.example (or AASA_SERVER).")
    var server: String?

    @Flag(help: "Exchange the CI job's OIDC ID token instead; print the token as shell exports.")
    var oidc = false

    @Option(help: "With --oidc on GitHub Actions: the audience to ask the ID token for.")
    var audience: String?

    @Option(help: "With --oidc: the variable holding the ID token (GitLab's id_tokens:).")
    var tokenEnv: String?

    @Option(help: "With --oidc: the team, when rules of several teams match the job.")
    var team: String?

    @Option(help: "With --oidc: the scopes to ask for (write, read; default all the rules give).")
    var scope: String?

    @Option(help: "The token (default: read a line from standard input).")
    var token: String?

    @Option(help: "The profile's name.")
    var profile = "default"

    @Flag(help: "Save the profile without making it the current one.")
    var noSwitch = false

    @Flag(name: [.short, .long], help: "Print nothing on success.")
    var quiet = false

    func run() async throws {
        let env = ProcessInfo.processInfo.environment
        guard let server = server ?? env["AASA_SERVER"] else {
            throw CLIFailure("no server: pass --server or set AASA_SERVER")
        }
        if oidc {
            let exports = try await OIDCLogin.run(
                .init(server: server, audience: audience, tokenEnvironmentVariable: tokenEnv, team: team, scope: scope),
                environment: env)
            CLIOutput.write(Array(exports.utf8))
            return
        }
        var secret = token
        if secret == nil {
            if isatty(STDIN_FILENO) != 0 { FileHandle.standardError.write(Data("Token: ".utf8)) }
            secret = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces)
        }
        guard let secret, !secret.isEmpty else { throw CLIFailure("no token given") }
        let me = try await APIClient(server: server, token: secret).send(.get, "/v1/whoami")
            .decode(Components.Schemas.Whoami.self)
        var profiles = try Profiles.load()
        let team = me.team
        profiles.profiles[profile] = .init(server: server, token: secret, team: team)
        if !noSwitch || profiles.current == nil { profiles.current = profile }
        try profiles.save()
        if !quiet {
            CLIOutput.print(
                """
                Logged in to \(server) as \(ContractAnswer.cell(me.name)) (team \(team ?? "none, admin"), scopes \
                \(ContractAnswer.cell(me.scopes.map(\.rawValue)))).
                """
            )
            CLIOutput.print("Profile \(profile) saved in \(Profiles.path).")
        }
    }
}

struct Whoami: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The token in use: its name, team and scopes.")
    @OptionGroup var remote: RemoteOptions

    func run() async throws {
        let response = try await remote.client.send(.get, "/v1/whoami")
        try remote.show(response, as: Components.Schemas.Whoami.self) {
            Table.fields(
                $0,
                [
                    ("Token", { ContractAnswer.cell($0.name) }), ("ID", { ContractAnswer.cell($0.tokenID) }),
                    ("Team", { ContractAnswer.cell($0.team) }),
                    ("Scopes", { ContractAnswer.cell($0.scopes.map(\.rawValue)) }),
                ])
        }
    }
}
