import AASAStore
import Foundation
import Testing

/// The `aasad` executable as an operator runs it.
@Suite struct ProcessTests {
    static func binary() throws -> String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("aasad").path
        let candidates = [TestDatabase.repositoryRoot + "/.build/debug/aasad", beside]
        return try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0) })
    }

    /// Starts `aasad serve` on `url`, waits until it listens, sends SIGTERM: it must exit 0.
    @Test func sigtermShutsDownGracefully() async throws {
        let url = try await TestDatabase.shared.clone()
        defer { Task { await TestDatabase.shared.drop(url) } }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.binary())
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = "postgres://\(url.username)@\(url.host):\(url.port)/\(url.database)"
        environment["AASA_MIGRATIONS_DIR"] = TestDatabase.migrationsDirectory
        environment["AASA_LISTEN"] = "127.0.0.1:\(Int.random(in: 20_000..<40_000))"
        process.environment = environment
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("aasad-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardError = handle
        process.standardOutput = handle
        try process.run()
        defer { try? FileManager.default.removeItem(at: log) }

        var listening = false
        for _ in 0..<100 where !listening {
            try await Task.sleep(for: .milliseconds(100))
            listening = (try? String(contentsOf: log, encoding: .utf8))?.contains("listening on") == true
        }
        #expect(listening)
        process.terminate()  // SIGTERM
        for _ in 0..<100 where process.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        #expect(!process.isRunning)
        #expect(process.terminationStatus == 0)
    }
}
