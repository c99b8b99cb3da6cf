import Foundation
import Testing

/// The built `aasactl` binary, run as a release pipeline runs it: its own config file, its
/// environment, standard input, exit status, standard output and error.
struct CLIRunner: Sendable {
    struct Run: Sendable, CustomStringConvertible {
        var status: Int32
        var out: String
        var err: String
        var description: String { "exit \(status)\nstdout:\n\(out)\nstderr:\n\(err)" }
    }

    let server: String
    let config: String

    init(server: String) {
        self.server = server
        config =
            FileManager.default.temporaryDirectory.appendingPathComponent("aasactl-\(UUID().uuidString)/config.yaml")
            .path
    }

    static func binary() throws -> String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "aasactl"
        ).path
        let candidates = [TestDatabase.repositoryRoot + "/.build/debug/aasactl", beside]
        return try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0) })
    }

    /// Runs `aasactl args` off the concurrency pool (`offPool`).
    func callAsFunction(_ args: String..., stdin: String = "", environment: [String: String] = [:]) async throws -> Run
    {
        try await run(args, stdin: stdin, environment: environment)
    }

    func run(_ args: [String], stdin: String = "", environment: [String: String] = [:]) async throws -> Run {
        let binary = try Self.binary()
        var env = ProcessInfo.processInfo.environment
        env["AASACTL_CONFIG"] = config
        env.removeValue(forKey: "AASA_SERVER")
        env.removeValue(forKey: "AASA_TOKEN")
        env.removeValue(forKey: "AASA_PROFILE")
        for (k, v) in environment { env[k] = v }
        let finalEnvironment = env
        return try await offPool {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: binary)
            p.arguments = args
            p.environment = finalEnvironment
            let input = Pipe()
            let output = Pipe()
            // Standard error goes to a file, so a full pipe can never stall the child.
            let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent(
                "aasactl-err-\(UUID().uuidString)")
            _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: errorFile) }
            p.standardInput = input
            p.standardOutput = output
            p.standardError = try FileHandle(forWritingTo: errorFile)
            try p.launchSerialized()
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
            let out = output.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            let err = (try? Data(contentsOf: errorFile)) ?? Data()
            return Run(
                status: p.terminationStatus, out: String(decoding: out, as: UTF8.self),
                err: String(decoding: err, as: UTF8.self))
        }
    }
}
