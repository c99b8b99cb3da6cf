import AASAKernel
import AASAStore
import AASATestSupport
import Foundation
import Logging
import NIOCore
import PostgresNIO
import Testing

/// The read model's listener on a connection that closes under it, as PgBouncer closes clients in a
/// switchover: refused or failed, never a trap that ends the process (PostgresNIO's own
/// `addListener` drops a listener whose write met a closed channel, and its deinit traps).
@Suite struct ListenerOnClosedConnectionTests {
    static func connect(_ url: DatabaseURL, id: Int) async throws -> PostgresConnection {
        let configuration = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.username, password: url.password, database: url.database,
            tls: .disable)
        return try await PostgresConnection.connect(
            configuration: configuration, id: id, logger: Logger(label: "listener-test"))
    }

    @Test func aListenerHearsOnAnOpenConnectionAndIsRefusedOnAClosedOne() async throws {
        try await TestDatabase.shared.withDatabase { url in
            let connection = try await Self.connect(url, id: 1)
            let (heard, hear) = AsyncStream.makeStream(of: String.self)
            let listener = try await connection.addListenerIfOpen(channel: "aasa_listener_test") { _, message in
                hear.yield(message.payload)
            }
            _ = try await connection.query("NOTIFY aasa_listener_test, 'one'", logger: Logger(label: "t"))
            var iterator = heard.makeAsyncIterator()
            #expect(await iterator.next() == "one")
            listener.stop()
            try await connection.close()
            await #expect(throws: PostgresConnection.ClosedBeforeListening.self) {
                _ = try await connection.addListenerIfOpen(channel: "aasa_listener_test") { _, _ in }
            }
        }
    }

    /// A listener added while its connection is being closed, 200 times: each is added and then
    /// failed by the close, or refused. Before, one whose write met the closed channel trapped.
    @Test func listenersRacingACloseNeverTrap() async throws {
        try await TestDatabase.shared.withDatabase { url in
            var added = 0
            var refused = 0
            for id in 0..<200 {
                let connection = try await Self.connect(url, id: id)
                async let closing: Void = connection.close()
                do {
                    let listener = try await connection.addListenerIfOpen(channel: "aasa_race") { _, _ in }
                    listener.stop()
                    added += 1
                } catch is PostgresConnection.ClosedBeforeListening {
                    refused += 1
                }
                try? await closing
            }
            #expect(added + refused == 200)
        }
    }
}
