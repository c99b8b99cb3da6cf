import AASAModel
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// `aasactl login --oidc`: the CI job's OIDC ID token exchanged for a short-lived team token
/// (`POST /v1/oidc/token`), with no secret stored in the pipeline and none written to disk.
///
/// The ID token comes from GitHub Actions' token endpoint (`ACTIONS_ID_TOKEN_REQUEST_URL` and
/// `ACTIONS_ID_TOKEN_REQUEST_TOKEN`, with the audience) or from the variable GitLab's `id_tokens:`
/// sets (`--token-env`). The exchanged token is printed as shell for `eval`, so it lives in the
/// job's environment only: `login="$(aasactl login --oidc --audience aasad.example)"; eval "$login"`.
enum OIDCLogin {
    struct Options: Sendable {
        var server: String
        var audience: String?
        var tokenEnvironmentVariable: String?
        var team: String?
        var scope: String?
    }

    static func run(_ options: Options, environment env: [String: String]) async throws -> String {
        let idToken = try await jobToken(options, environment: env)
        var form = [
            ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("subject_token", idToken),
            ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"),
        ]
        if let team = options.team { form.append(("audience", team)) }
        if let scope = options.scope { form.append(("scope", scope)) }
        let answer = try await exchange(form, server: options.server)
        guard let token = answer["access_token"]?.stringValue else {
            throw CLIFailure("the server's answer has no access_token")
        }
        var lines: [String] = []
        // A GitHub runner hides the token from every later log line once told to.
        if env["GITHUB_ACTIONS"] == "true" { lines.append("echo \(quote("::add-mask::" + token))") }
        lines.append("export AASA_SERVER=\(quote(options.server))")
        lines.append("export AASA_TOKEN=\(quote(token))")
        let team = answer["team"]?.stringValue ?? "?"
        let scope = answer["scope"]?.stringValue ?? "?"
        let expires = answer["expires_in"].map { JSONWriter().string($0) } ?? "?"
        CLIOutput.error("Exchanged the job's ID token: team \(team), scopes \(scope), valid for \(expires) s.")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The exchange, asked again while the issuer's keys are unavailable to the server (503
    /// `keys-unavailable`: nothing was issued and the ID token is not used up) after the answer's
    /// `Retry-After`, for up to two minutes in all, so an issuer's short outage does not fail a job.
    static func exchange(_ form: [(String, String)], server: String) async throws -> JSONObject {
        let client = APIClient(server: server, token: nil)
        var waited = 0
        while true {
            do {
                return try await client.send(.post, "/v1/oidc/token", form: form).json().objectValue ?? [:]
            } catch let failure as APIFailure
                where failure.status == 503 && failure.errors.contains(where: { $0.rule == "keys-unavailable" })
            {
                let wait = min(max(failure.retryAfter ?? 5, 1), 60)
                guard waited + wait <= 120 else { throw failure }
                CLIOutput.error("The issuer's keys are unavailable to \(server); asking again in \(wait) s.")
                try await Task.sleep(for: .seconds(wait))
                waited += wait
            }
        }
    }

    static func jobToken(_ options: Options, environment env: [String: String]) async throws -> String {
        if let name = options.tokenEnvironmentVariable {
            guard let token = env[name], !token.isEmpty else {
                throw CLIFailure("$\(name) is empty: declare it under the job's id_tokens: (GitLab)")
            }
            return token
        }
        guard let url = env["ACTIONS_ID_TOKEN_REQUEST_URL"], let bearer = env["ACTIONS_ID_TOKEN_REQUEST_TOKEN"] else {
            throw CLIFailure(
                """
                no ID token: on GitHub Actions give the job `permissions: id-token: write`; elsewhere name the \
                variable holding it with --token-env
                """)
        }
        guard let audience = options.audience else {
            throw CLIFailure("--audience is required on GitHub Actions: the aud the server's issuer is set for")
        }
        let separator = url.contains("?") ? "&" : "?"
        var request = HTTPClientRequest(url: url + separator + FormEncoding.encode([("audience", audience)]))
        request.headers.add(name: "Authorization", value: "Bearer \(bearer)")
        request.headers.add(name: "Accept", value: "application/json")
        let response: HTTPClientResponse
        do {
            response = try await CLIHTTP.client.execute(request, timeout: .seconds(30))
        } catch {
            throw CLIFailure("cannot reach the runner's token endpoint: \(APIClient.describe(error))")
        }
        let body = Array((try await response.body.collect(upTo: 1 << 20)).readableBytesView)
        guard response.status.code == 200,
            let value = (try? JSONParser.parse(body).value)?.objectValue?["value"]?.stringValue
        else {
            throw CLIFailure("the runner's token endpoint answered HTTP \(response.status.code) with no token")
        }
        return value
    }

    /// A single-quoted shell word.
    static func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
