import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASATestSupport
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
            let result = try Spawn.run(binary, args, environment: finalEnvironment, stdin: Data(stdin.utf8))
            return Run(
                status: result.status, out: String(decoding: result.out, as: UTF8.self),
                err: String(decoding: result.err, as: UTF8.self))
        }
    }
}
