import AASAOutbound
import AASAServer
import AASATestSupport
import Foundation

/// A real OpenID provider for one test (Tests/Support/oidc-provider.py: oidc-provider-mock from
/// PyPI, TLS with a test CA, clients registered, PKCE and nonce required) at
/// `https://<host>:<port>`. Its people are set at start and changed with `setUser`; `authorize`
/// is a person pressing "Authorize" on its page.
final class OIDCProviderStandIn: Sendable {
    let dir: String
    let host: String
    let port: Int
    let process: SpawnedChild
    var issuer: String { "https://\(host):\(port)" }

    /// `tokenMaxAge`: the ID token's lifetime in seconds (negative: issued expired).
    init(host: String = "idp.test", tokenMaxAge: Int = 300, people: [[String: Any]]) throws {
        self.host = host
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("oidc-provider-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try PythonServer.makeCA(in: dir, hosts: [host])
        port = try FreePort.pick()
        let python = TestDatabase.repositoryRoot + "/.build/oidc-provider-venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw ProviderMissing(description: "\(python) is missing: scripts/test makes it (oidc-provider-mock)")
        }
        let claims = try people.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        process = try SpawnedChild(
            python,
            [
                TestDatabase.repositoryRoot + "/Tests/Support/oidc-provider.py", "\(port)", dir + "/server.pem",
                dir + "/server.key", "\(tokenMaxAge)",
            ] + claims,
            environment: ProcessInfo.processInfo.environment, readsOutput: true)
        _ = process.output?.availableData  // "ready"
    }

    struct ProviderMissing: Error, CustomStringConvertible { var description: String }

    deinit {
        process.terminate()
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// aasad trusts this provider's CA and finds its host on loopback.
    func configure(_ config: inout AppConfig) {
        config.fetch.caFile = dir + "/ca.pem"
        config.fetch.resolve[host] = "127.0.0.1"
    }

    var curlFlags: [String] { ["--cacert", dir + "/ca.pem", "--resolve", "\(host):\(port):127.0.0.1"] }

    private func curl(_ arguments: [String]) async throws -> String {
        let flags = curlFlags
        let result = try await offPool {
            try Spawn.run(
                "/usr/bin/curl", ["-sS"] + flags + arguments, environment: ProcessInfo.processInfo.environment)
        }
        guard result.status == 0 else { throw POSIXError(.EIO) }
        return String(decoding: result.out, as: UTF8.self)
    }

    /// A client registered for `redirectURI` (dynamic registration): its ID and secret.
    func register(redirectURI: String) async throws -> (id: String, secret: String) {
        let body = String(
            decoding: try JSONSerialization.data(withJSONObject: ["redirect_uris": [redirectURI]]), as: UTF8.self)
        let answer = try await curl([
            "-f", "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", body,
            issuer + "/oauth2/clients",
        ])
        let object = try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any]
        guard let id = object?["client_id"] as? String, let secret = object?["client_secret"] as? String else {
            throw POSIXError(.EIO)
        }
        return (id, secret)
    }

    /// Replaces a person's claims (their groups, say) at the provider.
    func setUser(_ sub: String, _ claims: [String: Any]) async throws {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: claims), as: UTF8.self)
        _ = try await curl([
            "-f", "-X", "PUT", "-H", "Content-Type: application/json", "--data-binary", body,
            issuer + "/users/\(sub)",
        ])
    }

    /// `sub` authorizes the request `url` (the provider's authorization URL aasad sent the browser
    /// to): the URL the provider then sends the browser back to, with the code and state.
    func authorize(_ url: String, as sub: String) async throws -> String {
        let location = try await curl([
            "-o", "/dev/null", "-w", "%{redirect_url}", "--data-urlencode", "sub=\(sub)", url,
        ])
        guard !location.isEmpty else { throw POSIXError(.EIO) }
        return location
    }
}
