import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import AASATestSupport
import Foundation
import Logging
import Synchronization
import Testing

/// The `aasad` executable as an operator runs it.
@Suite struct ProcessTests {
    static func binary() throws -> String {
        // The binary built with these tests first: a stale .build/debug/aasad must not stand in for it.
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "aasad"
        ).path
        let candidates = [beside, TestDatabase.repositoryRoot + "/.build/debug/aasad"]
        return try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0) })
    }

    /// Starts `aasad serve` on a fresh database, waits until it listens, sends SIGTERM: it must exit 0.
    @Test func sigtermShutsDownGracefully() async throws {
        try await TestDatabase.shared.withDatabase { url in
            let server = try ServerProcess(database: url)
            try await server.start()
            server.process.terminate()  // SIGTERM
            try await offPool { server.process.waitUntilExit() }
            #expect(server.process.terminationStatus == 0, "\(server.output)")
        }
    }

    /// SIGTERM while requests are in flight and clients keep coming: the requests already in the
    /// server finish with their normal answer and their writes commit, new connections are refused,
    /// no client sees a cut-off response or a 5xx, and the process exits 0.
    @Test func sigtermUnderLoadLetsInFlightRequestsFinish() async throws {
        try await TestDatabase.shared.withDatabase { url in
            let admin = try await TestDatabase.shared.withClient(url: url) {
                try await TestWorld.makeToken($0, teamID: nil, scopes: [.admin], name: "sigterm test")
            }
            let server = try ServerProcess(database: url, logLevel: "debug")
            try await server.start()

            // Load: four clients calling in a loop until the server stops taking connections.
            let answeredSoFar = AnswerCount()
            let load = Task {
                try await withThrowingTaskGroup(of: [Curl.Reply].self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            var replies: [Curl.Reply] = []
                            for _ in 0..<2_000 {
                                let reply = try await Curl.call("GET", server.baseURL + "/v1/teams", token: admin)
                                replies.append(reply)
                                if reply.status != 0 { answeredSoFar.add() }
                                if reply.exit == 7 { break }
                            }
                            return replies
                        }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
            }
            _ = try await eventually(timeout: .seconds(20), every: .milliseconds(100)) { answeredSoFar.value >= 20 }
            // Five writes held open inside the server: head sent, body half sent.
            let held = try (0..<5).map { i in
                try SlowRequest(
                    port: server.port, method: "POST", path: "/v1/teams", token: admin, json: #"{"name":"held-\#(i)"}"#)
            }
            // Wait until aasad has all five inside (it logs each request as it starts), not a guess.
            #expect(
                try await server.waitForLog(["request started", "method=POST"], count: 5),
                "the held requests reached aasad")
            kill(server.process.processIdentifier, SIGTERM)
            try await Task.sleep(for: .milliseconds(500))
            #expect(server.process.isRunning, "aasad waits for the requests in flight")
            let answers = try await offPool { try held.map { try $0.finish() } }
            for answer in answers { #expect(answer.status == 201, "a held request finished: \(answer)") }

            let replies = try await load.value
            let answered = replies.filter { $0.status != 0 }
            #expect(answered.count >= 20, "the load ran: \(answered.count) answers")
            #expect(
                answered.allSatisfy { $0.status == 200 && $0.exit == 0 }, "every answer started was complete and 200")
            // A request with no answer at all was never started: the connection was refused (7), or the
            // kernel had accepted it while aasad was closing idle connections (52, 56). HTTP/1.1 lets
            // a client retry those; what must never happen is an answer cut short.
            let unanswered = replies.filter { $0.status == 0 }
            #expect(unanswered.allSatisfy { [7, 52, 56].contains($0.exit) }, "exits: \(Set(replies.map(\.exit)))")
            #expect(replies.contains { $0.exit == 7 }, "new connections were refused after SIGTERM")

            try await offPool { server.process.waitUntilExit() }
            #expect(server.process.terminationStatus == 0, "\(server.output)")
            // The held writes committed before the process left.
            let teams = try await TestDatabase.shared.withClient(url: url) { db in
                try await db.read(logger: Logger(label: "t")) {
                    try await $0.listTeams(onlyID: nil, after: nil, limit: 500)
                }
            }
            #expect(Set(teams.map(\.name)).isSuperset(of: (0..<5).map { "held-\($0)" }))
        }
    }
}

/// How many answers the load has had so far, read while it runs.
final class AnswerCount: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
