import AASAStore
import AASATestSupport
import Foundation

/// Tests/Support/freeze-proxy.py in front of the suite's PostgreSQL: a world whose aasad connects
/// through it can have one of its connections go silent (`freeze`) without stopping a backend of the
/// shared cluster, which would hold every other test's DROP DATABASE until resumed.
final class FreezeProxy: Sendable {
    let port: Int
    private let process: Process
    private let commands: FileHandle
    private let answers: FileHandle

    init(upstream: DatabaseURL) throws {
        port = try FreePort.pick()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", TestDatabase.repositoryRoot + "/Tests/Support/freeze-proxy.py", "\(port)", "\(upstream.port)",
        ]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.launchSerialized()
        self.process = process
        commands = input.fileHandleForWriting
        answers = output.fileHandleForReading
        _ = answers.availableData  // "ready"
    }

    /// `url`, through this proxy.
    func url(_ url: DatabaseURL) -> DatabaseURL {
        var copy = url
        copy.port = port
        return copy
    }

    /// The connection of the backend whose `pg_stat_activity.client_port` is `clientPort` goes
    /// silent; the others are carried.
    func freeze(clientPort: Int) async throws { try await send("freeze \(clientPort)") }

    /// The silent connections are closed.
    func release() async throws { try await send("release") }

    private func send(_ command: String) async throws {
        let (commands, answers) = (self.commands, self.answers)
        try await offPool {
            commands.write(Data((command + "\n").utf8))
            _ = answers.availableData  // the command echoed once done
        }
    }

    deinit { process.terminate() }
}
