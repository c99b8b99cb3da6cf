import AASAKernel
import AASAStore
import AASATestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// The served files' follower on a connection that goes silent (a lost node: the socket stays
/// open, nothing more arrives): its heartbeat finds out, and it listens again on a new connection
/// while the old one is still silent, so a publish on another replica reaches this one by NOTIFY
/// again. Before, it stayed on the dead connection for good and publishes arrived only through the
/// 30 s reload.
@Suite struct ServedFileFollowerHeartbeatTests {
    /// The backends of the served-file follower's listening connections.
    static func followerBackends(_ w: TestWorld) async throws -> [Int32] {
        try await w.withDatabase { database in
            try await database.read(logger: Logger(label: "heartbeat test")) { session in
                try await session.all(
                    """
                    SELECT pid FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid()
                      AND (query LIKE '%aasad served files%' OR query LIKE '%LISTEN "aasa_revisions"%')
                    """, as: Int32.self)
            }
        }
    }

    @Test func aSilentListeningConnectionIsLeftForANewOne() async throws {
        try await TestDatabase.shared.withDatabase { url in
            let proxy = try FreezeProxy(upstream: url)
            try await TestWorld.run(live: true, databaseURL: proxy.url(url)) { w in
                _ = try await ServedFileConnectionTests.published(w)
                let listening = try await eventually(timeout: .seconds(120)) {
                    try await Self.followerBackends(w).count == 1
                }
                try #require(listening, "the served-file follower never listened")
                let old = try #require(try await Self.followerBackends(w).first)
                let port = try await w.withDatabase { database in
                    try await database.read(logger: Logger(label: "heartbeat test")) { session in
                        try await session.first(
                            "SELECT client_port FROM pg_stat_activity WHERE pid = \(old)", as: Int32.self)
                    }
                }
                try await proxy.freeze(clientPort: Int(try #require(port)))
                // Liveness bounds only, loose for the whole suite's load (alone it moves within 7 s).
                let moved = try await eventually(timeout: .seconds(120)) {
                    try await Self.followerBackends(w).contains { $0 != old }
                }
                #expect(moved, "the follower still listens only on the silent connection")
                try await proxy.release()
            }
        }
    }
}
