import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import AASATestSupport
import Foundation
import Synchronization
import Testing

/// A real `aasad serve` process on a test database, for what only processes can show: replicas
/// following each other, SIGTERM, kill -9.
final class ServerProcess: @unchecked Sendable {
    /// Set once, by `start()`, before the test uses the server.
    var process: SpawnedChild { child.withLock { $0! } }
    private let child = Mutex<SpawnedChild?>(nil)
    private(set) var port: Int
    let log: URL
    private let environment: [String: String]
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// `listenPort`: a port of the test's choosing, for a replica started again where a proxy
    /// expects it (a rolling restart); otherwise the kernel's.
    init(
        database url: DatabaseURL, logLevel: String? = nil, environment extra: [String: String] = [:],
        listenPort: Int = 0
    ) throws {
        // `extra` last: a test's own settings (the probe's trust and overrides, webhook timing).
        var environment = OneShotAasad.environment(url)
        if let logLevel { environment["LOG_LEVEL"] = logLevel }
        environment.merge(extra) { $1 }
        // Port 0: the kernel gives a free port at bind and aasad's log names it. A port picked
        // before the start could be taken meanwhile (another test's server, or any outgoing
        // connection's local port from the same ephemeral range) and the bind then failed.
        environment["AASA_LISTEN"] = "127.0.0.1:\(listenPort)"
        self.environment = environment
        log = FileManager.default.temporaryDirectory.appendingPathComponent("aasad-\(UUID().uuidString).log")
        port = 0
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
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

    /// Starts the process and waits until it listens (its log names the port the kernel gave it);
    /// throws (the test stops there) if it exits or does not listen within 60 s, a liveness bound
    /// far above the worst start seen (alone it listens in well under a second; 200 starts under
    /// a CPU hog, `StartTests`, all within a few). A start that does not listen is reported with
    /// what each of its threads was doing, and never tried again: a retry would hide it.
    ///
    /// Issue 50: twice in about ten whole-suite CI runs an aasad logged "served files loaded" and
    /// then nothing, while the harness picked its port before starting it. A port picked early can
    /// be taken before the bind (by another test's server, or by any outgoing connection's local
    /// port, from the same ephemeral range); aasad then failed to bind, and its shutdown waited on
    /// a service stuck on a closed connection, silent. Both are gone: port 0 here, and a shutdown
    /// bounded whatever the database does.
    func start() async throws {
        let process = try SpawnedChild(try ProcessTests.binary(), environment: environment, log: log)
        child.withLock { $0 = process }
        let ended = try await eventually(timeout: .seconds(60), every: .milliseconds(50)) {
            Self.listeningPort(in: output) != nil || !process.isRunning
        }
        if let listening = Self.listeningPort(in: output) {
            port = listening
            return
        }
        let stuck = ended ? "" : Self.threads(of: process.processIdentifier)
        process.signal(SIGKILL)
        throw DidNotStart(description: "aasad did not start: \(output)\n\(stuck)")
    }

    /// The port of Hummingbird's "listening on 127.0.0.1:PORT" line.
    static func listeningPort(in log: String) -> Int? {
        guard let marker = log.range(of: "listening on 127.0.0.1:") else { return nil }
        let digits = log[marker.upperBound...].prefix { $0.isNumber }
        return Int(digits)
    }

    /// Each thread of `pid` with its state and kernel wait channel, and gdb's backtraces where gdb
    /// is installed (bounded by `timeout`).
    static func threads(of pid: Int32, backtraces: Bool = true) -> String {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var lines = tasks.sorted().map { task -> String in
            let base = "/proc/\(pid)/task/\(task)/"
            let name = (try? String(contentsOfFile: base + "comm", encoding: .utf8)) ?? "?"
            let state =
                ((try? String(contentsOfFile: base + "status", encoding: .utf8)) ?? "").split(separator: "\n")
                .first { $0.hasPrefix("State:") } ?? "State: ?"
            let wchan = (try? String(contentsOfFile: base + "wchan", encoding: .utf8)) ?? "?"
            return "thread \(task) \(name.trimmingCharacters(in: .whitespacesAndNewlines)) \(state) wchan=\(wchan)"
        }
        if backtraces, FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb"),
            let dump = try? Spawn.run(
                "/usr/bin/timeout",
                ["20", "/usr/bin/gdb", "-batch", "-p", "\(pid)", "-ex", "thread apply all bt 30"],
                environment: ProcessInfo.processInfo.environment)
        {
            lines.append(String(decoding: dump.out, as: UTF8.self))
        }
        return lines.joined(separator: "\n")
    }

    /// Waits until the log holds `count` lines containing every one of `needles` (an event
    /// inside the server), up to `seconds`.
    func waitForLog(_ needles: [String], count: Int = 1, seconds: Int = 30) async throws -> Bool {
        try await eventually(timeout: .seconds(seconds)) {
            output.split(separator: "\n").filter { line in needles.allSatisfy { line.contains($0) } }.count >= count
        }
    }

    /// SIGTERM, as an orchestrator stops a replica, and the wait for its exit status.
    func stopGracefully() async throws -> Int32 {
        process.signal(SIGTERM)
        let child = process
        return try await offPool {
            child.waitUntilExit()
            return child.terminationStatus
        }
    }

    func killHard() {
        process.signal(SIGKILL)
        process.waitUntilExit()
    }

    deinit {
        child.withLock {
            $0?.signal(SIGKILL)
            $0?.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: log)
    }
}
