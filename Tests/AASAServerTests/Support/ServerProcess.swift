import AASAStore
import Foundation
import Testing

/// A real `aasad serve` process on a test database, for what only processes can show: replicas
/// following each other, SIGTERM, kill -9.
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    let port: Int
    let log: URL
    var baseURL: String { "http://127.0.0.1:\(port)" }

    init(database url: DatabaseURL, logLevel: String? = nil) throws {
        port = Int.random(in: 20_000..<40_000)
        process.executableURL = URL(fileURLWithPath: try ProcessTests.binary())
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = "postgres://\(url.username)@\(url.host):\(url.port)/\(url.database)"
        environment["AASA_MIGRATIONS_DIR"] = TestDatabase.migrationsDirectory
        environment["AASA_LISTEN"] = "127.0.0.1:\(port)"
        if let logLevel { environment["LOG_LEVEL"] = logLevel }
        process.environment = environment
        log = FileManager.default.temporaryDirectory.appendingPathComponent("aasad-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardError = handle
        process.standardOutput = handle
    }

    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Starts the process and waits until it listens.
    func start() async throws {
        try process.run()
        for _ in 0..<150 {
            if output.contains("listening on") { return }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("aasad did not start: \(output)")
    }

    func killHard() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: log)
    }
}
