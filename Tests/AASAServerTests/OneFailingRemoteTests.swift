import AASAStore
import AASATestSupport
import Foundation
import HTTPTypes
import Logging
import Synchronization
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServer
@testable import AASAServices

/// Issue 50, section 2: one remote that fails holds back no other. Apple's CDN answering 500 for one
/// domain, and one webhook receiver that refuses connections, each among others that answer: the
/// others are checked or delivered in the same pass. (Google's API: `GoogleViewTests`; an origin
/// that stalls: `ProbeTests.aStallInTheBodyEndsAtTheDeadline`; a bucket that refuses:
/// `ObjectTargetTests`, each target completed on its own.)
@Suite struct OneFailingRemoteTests {
    @Test func oneCDNAnswerOf500LeavesTheOtherDomainsChecked() async throws {
        let origin = try await offPool { try ProbeTests.Origin() }
        try await TestWorld.run(configure: origin.configure) { w in
            for host in ["good.test", "junk.test", "other.test"] {
                let bytes = try await ProbeTests.publishDomain(w, host)
                try origin.serve(host, bytes, cdn: true)
            }
            try origin.behave(["cdnStatus": ["junk.test": 500]])
            var config = AppConfig(databaseURL: w.databaseURL)
            origin.configure(&config)
            let fetcher = try OutboundClient(config: config.fetch)
            let checked = try await w.withDatabase { database in
                try await CDNMonitor(
                    database: database, fetcher: fetcher, interval: .seconds(60), gap: .milliseconds(10),
                    logger: Logger(label: "test")
                ).runPass()
            }
            #expect(checked == 3, "every due domain checked in one pass")
            for host in ["good.test", "other.test"] {
                let status = try await w.call(.get, "/v1/domains/\(host)/cdn", token: w.adminToken)
                #expect(status.object["state"] as? String == "converged", "\(host): \(status.text)")
            }
            let failing = try await w.call(.get, "/v1/domains/junk.test/cdn", token: w.adminToken)
            #expect(failing.object["state"] as? String == "error", "\(failing.text)")
            #expect(failing.object["httpStatus"] as? Int == 500, "\(failing.text)")
        }
    }

    @Test func oneReceiverThatRefusesHoldsBackNoOtherWebhook() async throws {
        let origin = try await offPool { try ProbeTests.Origin() }
        let root = try PublishingTests.tempDir()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestWorld.run(configure: WebhookTests.configureWithoutWorker(origin)) { w in
            // Port 1 of a stand-in host: nothing listens, every attempt is refused.
            let (down, up) = try await Self.publishToTwoWebhooks(
                w, origin, root: root, other: "https://moved.test:1/hook")
            let attempts = try await Self.onePass(w, origin)
            #expect(attempts == 2, "one attempt each, in one pass")
            #expect(WebhookTests.received(origin).map { $0.headers["x-aasa-event"] ?? "" } == ["domain.publish"])
            let delivered = try await w.call(.get, "/v1/webhooks/\(up)/deliveries", token: w.adminToken)
            #expect(
                (delivered.object["items"] as? [[String: Any]])?.first?["status"] as? String == "delivered",
                "\(delivered.text)")
            let waiting = try await w.call(.get, "/v1/webhooks/\(down)/deliveries", token: w.adminToken)
            let item = (waiting.object["items"] as? [[String: Any]])?.first ?? [:]
            #expect(item["status"] as? String == "pending" && item["lastError"] != nil, "\(waiting.text)")
        }
    }

    /// A receiver that stalls: the other webhook's delivery is recorded while the stalled attempt is
    /// still running, not after it. The receiver holds its answer until the test has seen the
    /// record (an event, not the 5 s deadline racing a loaded machine's polling: CI once saw the
    /// deadline end the attempt first), and the pass's deadline is longer than that hold.
    @Test func aStalledReceiverDelaysNoOtherWebhooksRecord() async throws {
        let origin = try await offPool { try ProbeTests.Origin() }
        let root = try PublishingTests.tempDir()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestWorld.run(configure: WebhookTests.configureWithoutWorker(origin)) { w in
            let stalled = "https://good.test:\(origin.port)/hook/stall"
            let (_, up) = try await Self.publishToTwoWebhooks(w, origin, root: root, other: stalled)
            let finished = PassDone()
            let pass = Task {
                defer { finished.done.store(true, ordering: .relaxed) }
                return try await Self.onePass(w, origin, timeout: .seconds(120))
            }
            let recorded = try await eventually(timeout: .seconds(60), every: .milliseconds(50)) {
                let list = try await w.call(.get, "/v1/webhooks/\(up)/deliveries", token: w.adminToken)
                return (list.object["items"] as? [[String: Any]])?.first?["status"] as? String == "delivered"
            }
            let passStillRunning = !finished.done.load(ordering: .relaxed)
            _ = FileManager.default.createFile(atPath: origin.dir + "/release-stall", contents: Data())
            #expect(recorded && passStillRunning, "recorded while the stalled attempt ran")
            #expect(try await pass.value == 2)
        }
    }

    /// A slow receiver holds up only its own queue: while its attempt is held, a new event's
    /// delivery to the other webhook goes at once, in the same pass. Before, a pass went in rounds
    /// (32 per webhook), and the next round began only when every queue was done, so the other
    /// webhook's second delivery waited for the slow one's whole round.
    @Test func aSlowReceiverHoldsUpOnlyItsOwnQueue() async throws {
        let origin = try await offPool { try ProbeTests.Origin() }
        let root = try PublishingTests.tempDir()
        let secondRoot = try PublishingTests.tempDir()
        defer {
            try? FileManager.default.removeItem(atPath: root)
            try? FileManager.default.removeItem(atPath: secondRoot)
        }
        try await TestWorld.run(configure: WebhookTests.configureWithoutWorker(origin)) { w in
            let stalled = "https://good.test:\(origin.port)/hook/stall"
            let (slow, up) = try await Self.publishToTwoWebhooks(w, origin, root: root, other: stalled)
            let pass = Task { try await Self.onePass(w, origin, timeout: .seconds(120)) }
            func statuses(_ webhook: String) async throws -> [String] {
                let list = try await w.call(.get, "/v1/webhooks/\(webhook)/deliveries", token: w.adminToken)
                return (list.object["items"] as? [[String: Any]] ?? []).compactMap { $0["status"] as? String }
            }
            #expect(try await eventually(timeout: .seconds(90)) { try await statuses(up) == ["delivered"] })
            // A second event while the slow receiver still holds its first attempt.
            try await WebhookTests.domain(w, "second.example", root: secondRoot)
            try await WebhookTests.publish(w, "second.example")
            var slowStillHeld = false
            let second = try await eventually(timeout: .seconds(90)) {
                guard try await statuses(up) == ["delivered", "delivered"] else { return false }
                slowStillHeld = !(try await statuses(slow).contains("delivered"))
                return true
            }
            _ = FileManager.default.createFile(atPath: origin.dir + "/release-stall", contents: Data())
            #expect(second && slowStillHeld, "the other webhook's second delivery waited for the slow receiver")
            #expect(try await pass.value == 4, "each webhook's two deliveries, in one pass")
        }
    }
}

extension OneFailingRemoteTests {
    /// A webhook to `other` and one to the working receiver, then a publish that both hear; their IDs.
    static func publishToTwoWebhooks(_ w: TestWorld, _ origin: ProbeTests.Origin, root: String, other: String)
        async throws -> (other: String, up: String)
    {
        let (otherID, _) = try await WebhookTests.createWebhook(w, token: w.adminToken, url: other)
        let (up, _) = try await WebhookTests.createWebhook(w, token: w.adminToken, url: WebhookTests.hook(origin))
        try await w.createTeam("shop")
        try await WebhookTests.domain(w, "example.com", root: root)
        try await WebhookTests.publish(w, "example.com")
        return (otherID, up)
    }

    /// One pass of the webhook worker (a failed attempt waits ten minutes: never twice here).
    static func onePass(_ w: TestWorld, _ origin: ProbeTests.Origin, timeout: Duration? = nil) async throws -> Int? {
        var config = AppConfig(databaseURL: w.databaseURL)
        origin.configure(&config)
        if let timeout { config.fetch.timeout = timeout }
        let fetcher = try OutboundClient(config: config.fetch)
        return try await w.withDatabase { database in
            try await WebhookWorker(
                database: database, fetcher: fetcher, interval: .seconds(60), retryBase: .seconds(600),
                maxAge: .seconds(86_400), logger: Logger(label: "test")
            ).runPass()
        }
    }
}

private final class PassDone: Sendable {
    let done = Atomic(false)
}
