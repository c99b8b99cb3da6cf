import AASATestSupport
import Foundation

/// A moto server (S3, STS, IAM and CloudFront, from PyPI) on a free port, with the helper that
/// sets it up and reads it back with boto3 (Tests/Support/moto-admin.py). With `verifySignatures`
/// moto checks SigV4 after the set-up's first actions: a wrong secret is `SignatureDoesNotMatch`.
final class Moto: Sendable {
    let port: Int
    let process: SpawnedChild
    let keys: (id: String, secret: String)
    let distributionID: String
    let roleARN: String

    var endpoint: String { "http://127.0.0.1:\(port)" }

    init(buckets: [String], verifySignatures: Bool = true) throws {
        port = try FreePort.pick()
        var environment = ProcessInfo.processInfo.environment
        // The set-up's first three actions (the IAM user, its policy, its key) go unsigned.
        if verifySignatures { environment["INITIAL_NO_AUTH_ACTION_COUNT"] = "3" }
        // Through a wrapper that stops with this process (and not the `moto_server` script, which a
        // pip install may not have put on PATH yet).
        process = try SpawnedChild(
            "/usr/bin/env", ["python3", TestDatabase.repositoryRoot + "/Tests/Support/moto-server.py", "\(port)"],
            environment: environment)
        let setup =
            try JSONSerialization.jsonObject(with: try Self.admin("http://127.0.0.1:\(port)", ["setup"] + buckets))
            as? [String: String] ?? [:]
        guard let id = setup["accessKeyID"], let secret = setup["secretAccessKey"] else {
            process.terminate()
            throw POSIXError(.EIO)
        }
        keys = (id, secret)
        distributionID = setup["distributionID"] ?? ""
        roleARN = setup["roleARN"] ?? ""
    }

    deinit { process.terminate() }

    /// Runs moto-admin.py; what it prints (JSON).
    static func admin(_ endpoint: String, _ args: [String]) throws -> Data {
        let result = try Spawn.run(
            "/usr/bin/env", ["python3", TestDatabase.repositoryRoot + "/Tests/Support/moto-admin.py", endpoint] + args,
            environment: ProcessInfo.processInfo.environment)
        guard result.status == 0 else {
            throw Failure(description: "moto-admin \(args.first ?? ""): " + String(decoding: result.err, as: UTF8.self))
        }
        return result.out
    }

    @discardableResult
    func admin(_ args: [String]) throws -> Data { try Self.admin(endpoint, args) }

    /// An object read back with boto3: bytes, content type, cache-control, metadata.
    func object(_ bucket: String, _ key: String) throws -> (
        bytes: [UInt8], contentType: String?, cacheControl: String?, metadata: [String: String]
    ) {
        let o =
            try JSONSerialization.jsonObject(with: admin(["get", keys.id, keys.secret, bucket, key])) as? [String: Any]
            ?? [:]
        let bytes = [UInt8](Data(base64Encoded: o["base64"] as? String ?? "") ?? Data())
        return (
            bytes, o["contentType"] as? String, o["cacheControl"] as? String, o["metadata"] as? [String: String] ?? [:]
        )
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }
}
