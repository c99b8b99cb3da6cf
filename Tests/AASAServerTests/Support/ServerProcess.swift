import AASACore
import AASAStore
import AASATestSupport
import Foundation
import Testing

/// A real `aasad serve` process on a test database, for what only processes can show: replicas
/// following each other, SIGTERM, kill -9.
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    let port: Int
    let log: URL
    var baseURL: String { "http://127.0.0.1:\(port)" }

    init(database url: DatabaseURL, logLevel: String? = nil, environment extra: [String: String] = [:]) throws {
        // `extra` last: a test's own settings (the probe's trust and overrides, webhook timing).
        port = try FreePort.pick()
        process.executableURL = URL(fileURLWithPath: try ProcessTests.binary())
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = "postgres://\(url.username)@\(url.host):\(url.port)/\(url.database)"
        environment["AASA_MIGRATIONS_DIR"] = TestDatabase.migrationsDirectory
        environment["AASA_LISTEN"] = "127.0.0.1:\(port)"
        if let logLevel { environment["LOG_LEVEL"] = logLevel }
        environment.merge(extra) { $1 }
        process.environment = environment
        log = FileManager.default.temporaryDirectory.appendingPathComponent("aasad-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardError = handle
        process.standardOutput = handle
    }

    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Two replicas on one database, both listening, and an admin token for them.
    static func replicas(on url: DatabaseURL) async throws -> (a: ServerProcess, b: ServerProcess, admin: String) {
        let admin = try await WebhookProcessTests.admin(url)
        let a = try ServerProcess(database: url)
        let b = try ServerProcess(database: url)
        try await a.start()
        try await b.start()
        return (a, b, admin)
    }

    struct DidNotStart: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts the process and waits until it listens; throws (the test stops there) if it exits or
    /// does not listen within 30 s, rather than going on against a dead server. Alone it listens
    /// in well under a second; the bound is for the whole suite's processes and database clones on
    /// two cores, where one start once took over 15 s.
    func start() async throws {
        try process.launchSerialized()
        let listening = try await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
            output.contains("listening on") || !process.isRunning
        }
        if listening && output.contains("listening on") { return }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        throw DidNotStart(description: "aasad did not start: \(output)")
    }

    /// Waits until the log holds `count` lines containing every one of `needles` (an event
    /// inside the server), up to `seconds`.
    func waitForLog(_ needles: [String], count: Int = 1, seconds: Int = 30) async throws -> Bool {
        try await eventually(timeout: .seconds(seconds)) {
            output.split(separator: "\n").filter { line in needles.allSatisfy { line.contains($0) } }.count >= count
        }
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
