import AASAModel
import AASAStore
import AASATestSupport
import Crypto
import Foundation
import HTTPTypes
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServer
@testable import AASAServices

/// Issue 39: a whole release job, run as a runner runs it: a shell script with the CI's
/// variables set, aasactl on the PATH, and no aasad secret anywhere. It logs in with the job's
/// OIDC ID token, applies a manifest and publishes; the audit leads back to the job.
@Suite struct OIDCJobTests {
    static let shopApp = "ABCDE12345.com.shop.app"
    static let manifest = """
        team: shop
        apps:
          \(shopApp):
            services: [applinks]
        domains:
          example.com:
            \(shopApp):
              - "/": "/shop/*"
        """

    /// aasad (as a process, trusting the issuer's CA), the issuer `github` or `gitlab`, team shop
    /// with example.com granted, and `rules` as shop's trust.
    static func withJob(
        issuerName: String, rules: [[String: Any]], serverEnvironment: [String: String] = [:],
        _ body: @Sendable (ServerProcess, OIDCIssuerStandIn, String) async throws -> Void
    ) async throws {
        let issuer = try await offPool { try OIDCIssuerStandIn(hosts: ["issuer.test", "localhost"]) }
        try await TestDatabase.shared.withDatabase { url in
            let admin = try await TestDatabase.shared.withClient(url: url) {
                try await TestWorld.makeToken($0, teamID: nil, scopes: [.admin], name: "admin")
            }
            let server = try ServerProcess(
                database: url,
                environment: [
                    "AASA_PROBE_CA_FILE": issuer.dir + "/ca.pem", "AASA_PROBE_RESOLVE": "issuer.test=127.0.0.1",
                    "AASA_PROBE_ALLOW_PRIVATE": "1",
                ].merging(serverEnvironment) { $1 })
            try await server.start()
            func call(_ method: String, _ path: String, _ json: Any) async throws {
                let text = String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self)
                let reply = try await Curl.call(method, server.baseURL + path, token: admin, json: text)
                try #require(
                    (200..<300).contains(reply.status), "\(path): \(String(decoding: reply.body, as: UTF8.self))")
            }
            try await call("PUT", "/v1/oidc/issuers/\(issuerName)", ["issuer": issuer.issuer, "audience": "aasad"])
            try await call("POST", "/v1/teams", ["name": "shop"])
            try await call("POST", "/v1/domains", ["host": "example.com"])
            try await call("PUT", "/v1/domains/example.com/grants/shop", ["pathPrefixes": ["/shop"]])
            try await call("PUT", "/v1/teams/shop/trust", ["rules": rules])
            try await body(server, issuer, admin)
        }
    }

    /// Runs `script` in bash with `environment`, aasactl first on the PATH, and a config file path
    /// that must stay unwritten.
    static func run(_ script: String, environment: [String: String]) async throws -> CLIRunner.Run {
        let binary = try CLIRunner.binary()
        var env = ProcessInfo.processInfo.environment
        for key in ["AASA_SERVER", "AASA_TOKEN", "AASA_PROFILE", "GITHUB_ACTIONS"] { env.removeValue(forKey: key) }
        env["PATH"] = (binary as NSString).deletingLastPathComponent + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        env.merge(environment) { $1 }
        let final = env
        return try await offPool {
            let result = try Spawn.run("/bin/bash", ["-c", script], environment: final)
            return CLIRunner.Run(
                status: result.status, out: String(decoding: result.out, as: UTF8.self),
                err: String(decoding: result.err, as: UTF8.self))
        }
    }

    static func audit(_ server: ServerProcess, _ admin: String, _ filter: String = "team=shop") async throws
        -> [[String: Any]]
    {
        let reply = try await Curl.call("GET", server.baseURL + "/v1/audit?\(filter)&limit=100", token: admin)
        return (try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any])?["items"]
            as? [[String: Any]]
            ?? []
    }

    /// GitHub's and GitLab's comment APIs (Tests/Support/forge-api.py): plain HTTP on loopback.
    final class Forge: Sendable {
        let dir: String
        let port: Int
        let token = "forge-\(UUID().uuidString)"
        let process: SpawnedChild

        init() throws {
            dir = try PublishingTests.tempDir()
            port = try FreePort.pick()
            process = try PythonServer.start("forge-api.py", ["\(port)", dir, token])
        }

        deinit { process.terminate() }

        var comments: [[String: Any]] {
            guard let data = FileManager.default.contents(atPath: dir + "/comments.json") else { return [] }
            return (try? JSONSerialization.jsonObject(with: data)) as? [[String: Any]] ?? []
        }
    }

    @Test func aGitHubJobCommentsItsPlanThenATagAppliesAndPublishes() async throws {
        let rules: [[String: Any]] = [
            [
                "issuer": "github", "claims": ["repository": "acme/shop-ios", "ref": "refs/tags/v*"],
                "scopes": ["write"],
            ],
            [
                "issuer": "github", "claims": ["repository": "acme/shop-ios", "event_name": "pull_request"],
                "scopes": ["read"],
            ],
        ]
        try await Self.withJob(issuerName: "github", rules: rules) { server, issuer, admin in
            let forge = try await offPool { try Forge() }
            func claims(ref: String, event: String) throws {
                var claims = OIDCExchangeTests.github(issuer, ref: ref, event: event)
                for key in ["aud", "iat", "nbf", "exp", "jti"] { claims[key] = nil }
                try JSONSerialization.data(withJSONObject: claims).write(
                    to: URL(fileURLWithPath: issuer.dir + "/github-claims.json"))
            }
            let requestToken = "runner-\(UUID().uuidString)"
            try Data(requestToken.utf8).write(to: URL(fileURLWithPath: issuer.dir + "/github-request-token"))
            let work = FileManager.default.temporaryDirectory.appendingPathComponent("job-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            try Data(Self.manifest.utf8).write(to: URL(fileURLWithPath: work + "/aasa.yaml"))
            try Data(Self.manifest.replacingOccurrences(of: "/shop/*", with: "/news/*").utf8).write(
                to: URL(fileURLWithPath: work + "/refused.yaml"))
            try Data(#"{"action": "synchronize", "number": 7, "pull_request": {"number": 7}}"#.utf8).write(
                to: URL(fileURLWithPath: work + "/event.json"))
            let config = work + "/home/.config/aasactl/config.yaml"
            let runner = [
                "GITHUB_ACTIONS": "true", "AASA_SERVER": server.baseURL,
                "ACTIONS_ID_TOKEN_REQUEST_URL": "https://localhost:\(issuer.port)/github/token?api-version=2.0",
                "ACTIONS_ID_TOKEN_REQUEST_TOKEN": requestToken, "SSL_CERT_FILE": issuer.dir + "/ca.pem",
                "AASACTL_CONFIG": config, "HOME": work + "/home", "GITHUB_API_URL": "http://127.0.0.1:\(forge.port)",
                "GITHUB_REPOSITORY": "acme/shop-ios", "GITHUB_EVENT_PATH": work + "/event.json",
                "GITHUB_TOKEN": forge.token,
            ]

            // The pull request's job: read only, the plan commented twice (one comment, edited).
            try claims(ref: "refs/pull/7/merge", event: "pull_request")
            let review = try await Self.run(
                """
                set -euo pipefail
                cd \(work)
                login="$(aasactl login --oidc --audience aasad)"
                eval "$login"
                for run in 1 2; do aasactl plan -f aasa.yaml --comment --publish || [ $? -eq 2 ]; done
                """, environment: runner)
            #expect(review.status == 0, "\(review)")
            var comments = forge.comments
            #expect(comments.count == 1 && comments.first?["writes"] as? Int == 2, "\(comments)")
            let body = comments.first?["body"] as? String ?? ""
            #expect(body.contains("<!-- aasactl-plan team=shop -->") && body.contains("#### example.com"), "\(body)")
            #expect(body.contains("gained `{\"/\":\"/shop/*\"}`") && body.contains("<details>"), "\(body)")
            #expect(body.contains("browser → `\(Self.shopApp)`"), "\(body)")
            // A refused plan still comments, saying why, and the job fails.
            let refused = try await Self.run(
                """
                cd \(work)
                login="$(aasactl login --oidc --audience aasad)"
                eval "$login"
                aasactl plan -f refused.yaml --comment
                """, environment: runner)
            #expect(refused.status == 1, "\(refused)")
            comments = forge.comments
            #expect(comments.count == 1 && comments.first?["writes"] as? Int == 3, "\(comments)")
            let refusal = comments.first?["body"] as? String ?? ""
            #expect(refusal.contains("The server refuses this manifest"), "\(comments)")

            // The tag's job: write, applied and published.
            try claims(ref: "refs/tags/v1.2.0", event: "push")
            let job = try await Self.run(
                """
                set -euo pipefail
                cd \(work)
                login="$(aasactl login --oidc --audience aasad)"
                eval "$login"
                aasactl whoami
                aasactl apply -f aasa.yaml --yes --publish
                """, environment: runner)
            #expect(job.status == 0, "\(job)")
            #expect(job.out.contains("::add-mask::aasa_"), "the runner is told to mask the token: \(job)")
            #expect(job.out.contains("oidc github acme/shop-ios@refs/tags/v1.2.0"), "\(job)")
            #expect(!FileManager.default.fileExists(atPath: config), "nothing written to disk")
            // The publish's audit names the exchanged token; the exchange names the job.
            let items = try await Self.audit(server, admin)
            let exchange = try #require(
                items.first {
                    $0["action"] as? String == "token.exchange"
                        && (($0["after"] as? [String: Any])?["job"] as? [String: Any])?["ref"] as? String
                            == "refs/tags/v1.2.0"
                })
            let job2 = (exchange["after"] as? [String: Any])?["job"] as? [String: Any] ?? [:]
            #expect(job2["runID"] as? String == "9000000001" && job2["repository"] as? String == "acme/shop-ios")
            let domainItems = try await Self.audit(server, admin, "domain=example.com")
            let publish = try #require(
                domainItems.first { $0["action"] as? String == "domain.publish" },
                "\(domainItems.compactMap { $0["action"] })")
            #expect((publish["actor"] as? [String: Any])?["tokenID"] as? String == exchange["entityID"] as? String)
            // Without the runner's permission (no request URL), the job is told what to fix.
            let denied = try await Self.run(
                "aasactl login --oidc --audience aasad", environment: ["AASA_SERVER": server.baseURL])
            #expect(denied.status == 1 && denied.err.contains("id-token: write"), "\(denied)")
        }
    }

    /// The issuer is down when the job logs in: aasad answers 503 keys-unavailable, and aasactl asks
    /// again after its Retry-After instead of failing the job; once the issuer is back, it is in.
    @Test func loginWaitsOutAnIssuersShortOutage() async throws {
        let rules: [[String: Any]] = [
            ["issuer": "gitlab", "claims": ["project_path": "acme/shop"], "scopes": ["read"]]
        ]
        try await Self.withJob(issuerName: "gitlab", rules: rules, serverEnvironment: ["AASA_OIDC_KEY_REFETCH_S": "1"])
        {
            server, issuer, _ in
            let t = Int(Date().timeIntervalSince1970)
            let id = try await issuer.mint([
                "iss": issuer.issuer, "aud": "aasad", "sub": "project_path:acme/shop:ref_type:branch:ref:main",
                "project_path": "acme/shop", "ref": "main", "jti": UUID().uuidString, "iat": t, "nbf": t - 5,
                "exp": t + 300,
            ])
            try await issuer.outage(true)
            async let login = Self.run(
                "aasactl login --oidc --token-env AASAD_ID_TOKEN",
                environment: ["AASA_SERVER": server.baseURL, "AASAD_ID_TOKEN": id])
            let refused = try await eventually(timeout: .seconds(30)) { issuer.refusedFetches >= 1 }
            try await issuer.outage(false)
            let run = try await login
            #expect(refused && run.status == 0 && run.out.contains("export AASA_TOKEN="), "\(run)")
            #expect(run.err.contains("keys are unavailable") && run.err.contains("asking again in 1 s"), "\(run.err)")
        }
    }

    @Test func aGitLabMergeRequestJobLogsInWithItsIDTokensVariableAndNotesThePlan() async throws {
        let rules: [[String: Any]] = [
            [
                "issuer": "gitlab", "claims": ["project_path": "acme/shop-android", "ref_protected": "true"],
                "scopes": ["write"],
            ]
        ]
        try await Self.withJob(issuerName: "gitlab", rules: rules) { server, issuer, admin in
            let forge = try await offPool { try Forge() }
            func token() async throws -> String {
                let t = Int(Date().timeIntervalSince1970)
                let claims: [String: Any] = [
                    "iss": issuer.issuer, "aud": "aasad",
                    "sub": "project_path:acme/shop-android:ref_type:branch:ref:main",
                    "project_path": "acme/shop-android",
                    "project_id": "42", "namespace_path": "acme", "ref": "main", "ref_type": "branch",
                    "ref_protected": "true", "pipeline_id": "77", "pipeline_source": "merge_request_event",
                    "job_id": "1234", "sha": "4f0c1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b", "user_login": "dev",
                    "jti": UUID().uuidString, "iat": t, "nbf": t - 5, "exp": t + 300,
                ]
                return try await issuer.mint(claims, kid: "ec1", alg: "ES256")
            }
            let work = try PublishingTests.tempDir()
            let manifest = """
                team: shop
                apps:
                  com.shop.android:
                    platform: android
                    fingerprints: ["\(AndroidKeyTests.signing)"]
                domains:
                  example.com:
                    com.shop.android:
                      - "/": "/shop/*"
                """
            try Data(manifest.utf8).write(to: URL(fileURLWithPath: work + "/aasa.yaml"))
            let id = try await token()
            let mergeRequest = [
                "AASA_SERVER": server.baseURL, "AASAD_ID_TOKEN": id,
                "CI_API_V4_URL": "http://127.0.0.1:\(forge.port)/api/v4",
                "CI_PROJECT_ID": "42", "CI_MERGE_REQUEST_IID": "3", "GITLAB_TOKEN": forge.token,
            ]
            let job = try await Self.run(
                """
                set -euo pipefail
                cd \(work)
                eval "$(aasactl login --oidc --token-env AASAD_ID_TOKEN)"
                aasactl whoami
                for run in 1 2; do aasactl plan -f aasa.yaml --comment || [ $? -eq 2 ]; done
                """, environment: mergeRequest)
            #expect(job.status == 0, "\(job)")
            #expect(job.out.contains("oidc gitlab acme/shop-android@main") && !job.out.contains("add-mask"), "\(job)")
            let notes = forge.comments
            #expect(notes.count == 1 && notes.first?["writes"] as? Int == 2, "\(notes)")
            #expect(notes.first?["thread"] as? String == "42#3", "\(notes)")
            let body = notes.first?["body"] as? String ?? ""
            #expect(body.contains("(Android)") && body.contains("`com.shop.android` no_match → open"), "\(body)")
            let items = try await Self.audit(server, admin)
            let exchange = try #require(items.first { $0["action"] as? String == "token.exchange" })
            let recorded = (exchange["after"] as? [String: Any])?["job"] as? [String: Any] ?? [:]
            #expect(recorded["runID"] as? String == "77" && recorded["jobID"] as? String == "1234", "\(recorded)")
            // GitLab's variable holds one token: a second login in the job is a replay.
            let again = try await Self.run(
                "aasactl login --oidc --token-env AASAD_ID_TOKEN",
                environment: ["AASA_SERVER": server.baseURL, "AASAD_ID_TOKEN": id])
            #expect(again.status == 1 && again.err.contains("[replay]"), "\(again)")
        }
    }
}

/// Issue 39: aasactl served by aasad, so a job downloads and checks it instead of building it.
@Suite struct CLIDownloadTests {
    @Test func aJobDownloadsVerifiesAndRunsTheMatchingAasactl() async throws {
        let dir = try PublishingTests.tempDir()
        try FileManager.default.copyItem(atPath: try CLIRunner.binary(), toPath: dir + "/aasactl-linux-x86_64")
        let serveDir: @Sendable (inout AppConfig) -> Void = { $0.cliDirectory = dir }
        try await TestWorld.run(configure: serveDir) { w in
            let index = try await w.call(.get, "/v1/cli")
            try #require(index.status == 200, "\(index.text)")
            let version = try #require(index.object["version"] as? String)
            let binaries = index.object["binaries"] as? [[String: Any]] ?? []
            #expect(binaries.compactMap { $0["arch"] as? String } == ["x86_64"], "only what the directory holds")
            let download = try await w.call(.get, "/v1/cli/aasactl?os=linux&arch=amd64")
            try #require(download.status == 200)
            let sha = SHA256.hash(data: Data(download.body)).map { String(format: "%02x", $0) }.joined()
            #expect(download.headers[HTTPField.Name("X-Checksum-SHA256")!] == sha)
            #expect(binaries.first?["sha256"] as? String == sha)
            let path = dir + "/downloaded-aasactl"
            try Self.writeExecutable(download.body, to: path)
            let run = try await offPool {
                try Spawn.run(path, ["--version"], environment: ProcessInfo.processInfo.environment)
            }
            #expect(run.status == 0, "\(String(decoding: run.err, as: UTF8.self))")
            #expect(String(decoding: run.out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == version)
            let arm = try await w.call(.get, "/v1/cli/aasactl?os=linux&arch=arm64")
            #expect(arm.status == 404 && arm.text.contains("arm64"), "\(arm.text)")
            let sparc = try await w.call(.get, "/v1/cli/aasactl?os=linux&arch=sparc")
            #expect(sparc.status == 422, "\(sparc.text)")
        }
        try await TestWorld.run { w in
            let none = try await w.call(.get, "/v1/cli/aasactl?arch=x86_64")
            #expect(none.status == 404 && none.text.contains("--cli-dir"), "\(none.text)")
        }
    }

    /// Writes the download as an executable through a close-on-exec descriptor: a child another
    /// test spawns meanwhile never holds it open for writing, which would make running the file
    /// fail with ETXTBSY for as long as that child lives.
    static func writeExecutable(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            offset += n
        }
    }
}
