import AASATestSupport
import Foundation

/// The test's stand-in servers (Tests/Support/*.py): a throw-away CA for their TLS, and each
/// started as a child that has said "ready".
enum PythonServer {
    /// `make-test-ca.sh DIR HOST…`: DIR/ca.pem (the root to trust), DIR/server.pem and server.key.
    static func makeCA(in dir: String, hosts: [String]) throws {
        let ca = try Spawn.run(
            "/bin/bash", [TestDatabase.repositoryRoot + "/Tests/Support/make-test-ca.sh", dir] + hosts,
            environment: ProcessInfo.processInfo.environment)
        guard ca.status == 0 else { throw POSIXError(.EIO) }
    }

    /// Starts Tests/Support/`script` with `arguments` and returns once it printed its ready line.
    static func start(_ script: String, _ arguments: [String]) throws -> SpawnedChild {
        // Its standard error goes nowhere: a child holding the test runner's own would keep
        // `swift test` waiting.
        let process = try SpawnedChild(
            "/usr/bin/env", ["python3", TestDatabase.repositoryRoot + "/Tests/Support/" + script] + arguments,
            environment: ProcessInfo.processInfo.environment, readsOutput: true)
        _ = process.output?.availableData  // "ready"
        return process
    }
}
