import AASAKernel
import AASAOutbound
import AASARules
import AASAServer
import AASAServices
import AASATestSupport
import Foundation

/// Tests/Support/oidc-issuer.py, started for one test: an OIDC issuer at
/// `https://issuer.test:<port>` (TLS with a test CA aasad is told to trust), with RSA `rsa1` and
/// P-256 `ec1` keys, a mint for ID tokens, key rotation, and GitHub's ID-token request endpoint.
final class OIDCIssuerStandIn: Sendable {
    let dir: String
    let port: Int
    let process: SpawnedChild
    var issuer: String { "https://issuer.test:\(port)" }

    /// `hosts`: the names its certificate is for (`localhost` too, for a client that cannot be told
    /// where issuer.test is, as aasactl on a runner).
    init(hosts: [String] = ["issuer.test"]) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("oidc-issuer-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try PythonServer.makeCA(in: dir, hosts: hosts)
        port = try FreePort.pick()
        process = try PythonServer.start(
            "oidc-issuer.py", ["\(port)", dir + "/server.pem", dir + "/server.key", dir])
    }

    deinit {
        process.terminate()
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// aasad trusts the test CA and finds issuer.test on loopback.
    func configure(_ config: inout AppConfig) {
        config.fetch.caFile = dir + "/ca.pem"
        config.fetch.resolve["issuer.test"] = "127.0.0.1"
    }

    /// curl's flags for reaching the stand-in as a client outside aasad would.
    var curlFlags: [String] { ["--cacert", dir + "/ca.pem", "--resolve", "issuer.test:\(port):127.0.0.1"] }

    private func post(_ path: String, _ body: [String: Any]) async throws -> String {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        let flags = curlFlags
        let url = issuer + path
        let result = try await offPool {
            try Spawn.run(
                "/usr/bin/curl",
                ["-sf", "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", json] + flags + [url],
                environment: ProcessInfo.processInfo.environment)
        }
        guard result.status == 0 else { throw POSIXError(.EIO) }
        return String(decoding: result.out, as: UTF8.self)
    }

    /// An ID token with `claims`, signed as `alg` says (`RS256`, `ES256`, `none`, `HS256-public`).
    /// `header`: members added to the JWT header (`crit`, say).
    func mint(_ claims: [String: Any], kid: String = "rsa1", alg: String = "RS256", header: [String: Any] = [:])
        async throws -> String
    {
        try await post("/mint", ["claims": claims, "kid": kid, "alg": alg, "header": header])
    }

    func rotate(add: [(kid: String, kty: String)] = [], remove: [String] = []) async throws {
        _ = try await post("/rotate", ["add": add.map { ["kid": $0.kid, "kty": $0.kty] }, "remove": remove])
    }

    /// While down, its discovery document and keys answer 503.
    func outage(_ down: Bool) async throws {
        _ = try await post("/outage", ["down": down])
    }

    /// How many times aasad fetched the JWKS.
    var jwksFetches: Int { requests("jwks") }

    /// How many of aasad's requests were refused during an outage.
    var refusedFetches: Int { requests("refused") }

    private func requests(_ kind: Substring) -> Int {
        ((try? String(contentsOfFile: dir + "/oidc-requests", encoding: .utf8)) ?? "").split(separator: "\n")
            .filter { $0 == kind }.count
    }
}
