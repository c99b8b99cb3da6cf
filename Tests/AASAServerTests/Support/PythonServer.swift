import AASATestSupport
import Foundation

/// The test's stand-in servers (Tests/Support/*.py): a throw-away CA for their TLS, and each
/// started as a child that has said "ready".
enum PythonServer {
    /// `make-test-ca.sh DIR HOST…`: DIR/ca.pem (the root to trust), DIR/server.pem and server.key.
    static func makeCA(in dir: String, hosts: [String]) throws {
        let ca = Process()
        ca.executableURL = URL(fileURLWithPath: "/bin/bash")
        ca.arguments = [TestDatabase.repositoryRoot + "/Tests/Support/make-test-ca.sh", dir] + hosts
        try ca.launchSerialized()
        ca.waitUntilExit()
        guard ca.terminationStatus == 0 else { throw POSIXError(.EIO) }
    }

    /// Starts Tests/Support/`script` with `arguments` and returns once it printed its ready line.
    static func start(_ script: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", TestDatabase.repositoryRoot + "/Tests/Support/" + script] + arguments
        let ready = Pipe()
        process.standardOutput = ready
        // Not the test runner's own stderr: a child holding it would keep `swift test` waiting.
        process.standardError = FileHandle.nullDevice
        try process.launchSerialized()
        _ = ready.fileHandleForReading.availableData  // "ready"
        return process
    }
}
