import AASAKernel
import AASAServer
import AASATestSupport
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// One team's publishes to a bucket that accepts and never answers, 24 at once (a pipeline's
/// parallel jobs), beside another team's steady reads, each of which needs a connection (the read
/// model off). Before, the publishes held the whole pool (each its request's connection, through
/// the domain's lock and the uploads) and the other team's reads waited and failed with 503. Now a
/// team has at most a third of the pool in flight (2 of the test world's 8): the rest are refused at once, 429 with
/// Retry-After, and the other team's reads all succeed.
@Suite struct PublishesInFlightTests {
    final class Answers: Sendable {
        let publishes = Mutex<[(status: Int, retryAfter: String?)]>([])
        let done = Atomic<Bool>(false)
    }

    @Test func aHungBucketTakesOnlyItsTeamsShareOfThePool() async throws {
        let hung = try SpawnedChild(
            "/usr/bin/env", ["python3", TestDatabase.repositoryRoot + "/Tests/Support/hung-server.py"],
            environment: ProcessInfo.processInfo.environment, readsOutput: true)
        defer {
            hung.signal(SIGKILL)
            hung.waitUntilExit()
        }
        // Its ready line names the port the kernel gave it.
        var ready = ""
        while !ready.contains("\n"), let chunk = hung.output?.availableData, !chunk.isEmpty {
            ready += String(decoding: chunk, as: UTF8.self)
        }
        let port = try #require(Int(ready.split(separator: " ").last?.filter(\.isNumber) ?? ""), "\(ready)")
        let credentials = FileManager.default.temporaryDirectory
            .appendingPathComponent("creds-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: credentials) }
        try #"{"hung": {"accessKeyID": "AKIAHUNG", "secretAccessKey": "never-answers"}}"#.write(
            toFile: credentials, atomically: true, encoding: .utf8)

        let configure: @Sendable (inout AppConfig) -> Void = { config in
            config.credentialsFile = credentials
            config.readCache = false
        }
        try await TestWorld.run(configure: configure) { w in
            try await ObjectTargetTests.setUp(w)
            let target: [String: Any] = [
                "kind": "s3", "bucket": "hung", "prefix": "sites/shop", "endpoint": "http://127.0.0.1:\(port)",
                "insecure": true, "credentials": "hung",
            ]
            let set = try await w.call(
                .put, "/v1/domains/shop.test/targets", token: w.adminToken, json: ["targets": [target]])
            try #require(set.status == 200, "\(set.text)")
            let shop = try await w.teamToken("shop", scopes: ["write"]).secret
            try #require(try await w.createTeam("reader").status == 201)
            try #require(
                try await w.call(
                    .post, "/v1/teams/reader/apps", token: w.adminToken, json: ["appID": "ABCDE12345.com.reader.app"]
                ).status == 201)
            let reader = try await w.teamToken("reader", scopes: ["read"]).secret

            let answers = Answers()
            async let publishing: Void = withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<24 {
                    group.addTask {
                        let reply = try await w.call(
                            .post, "/v1/domains/shop.test/publish", token: shop, json: ["reason": "job \(n)"])
                        answers.publishes.withLock { $0.append((reply.status, reply.headers[.retryAfter])) }
                    }
                }
                try await group.waitForAll()
                answers.done.store(true, ordering: .relaxed)
            }
            // The other team reads until every publish has been answered.
            var reads: [Int] = []
            while !answers.done.load(ordering: .relaxed) && reads.count < 2000 {
                reads.append(try await w.call(.get, "/v1/teams/reader/apps", token: reader).status)
            }
            try await publishing

            let statuses = answers.publishes.withLock { $0 }
            let refused = statuses.filter { $0.status == 429 }
            #expect(
                !reads.isEmpty && reads.allSatisfy { $0 == 200 },
                "reads: \(Dictionary(grouping: reads) { $0 }.mapValues(\.count))")
            #expect(refused.count >= 24 - 2, "statuses: \(statuses.map(\.status))")
            #expect(refused.allSatisfy { $0.retryAfter == "5" }, "every refusal says when to retry")
            #expect(!statuses.contains { $0.status == 500 }, "\(statuses.map(\.status))")
        }
    }
}
