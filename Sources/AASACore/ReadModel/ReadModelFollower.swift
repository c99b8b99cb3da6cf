import AASAStore
import Logging
import PostgresNIO
import ServiceLifecycle

/// Moves this replica's read generation whenever anything changes what the read model holds:
/// LISTEN `aasa_reads`, which the trigger of migration 0018 NOTIFYs in every changing transaction,
/// on a connection of its own. The generation moves on the connection's event loop as each
/// notification is read, so it has moved before any later answer on that connection is seen: the
/// round trips `ReadGeneration.sync()` asks for run here. While the connection is down the
/// generation is "not listening", and the read model serves nothing from memory.
package struct ReadModelFollower: Service {
    /// The round trip `ReadGeneration.sync()` waits for did not answer in time.
    struct RoundTripTimedOut: Error {}

    package static let channel = "aasa_reads"

    package let database: Database
    package let generation: ReadGeneration
    package let logger: Logger

    package init(database: Database, generation: ReadGeneration, logger: Logger) {
        self.database = database
        self.generation = generation
        self.logger = logger
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown { await listenForever() }
        generation.notListening()
    }

    /// One query answered to its end (its rows read, so its completion has been received), within
    /// `deadline`: past it the connection is closed, which fails the query, lets every waiting read
    /// go to the database (`notListening`), and makes the follower connect again. A hot read never
    /// waits on a stuck connection for longer than that.
    private func roundTrip(_ connection: PostgresConnection, deadline: Duration = .seconds(2)) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await _ in try await connection.query("SELECT 1", logger: logger) {}
            }
            group.addTask {
                try await Task.sleep(for: deadline)
                logger.warning("the read model's round trip took over \(deadline); connecting again")
                try? await connection.close()
                throw RoundTripTimedOut()
            }
            try await group.next()
            group.cancelAll()
        }
    }

    private func listenForever() async {
        while !Task.isCancelled {
            do {
                try await database.client.withConnection { connection in
                    let listener = connection.addListener(channel: Self.channel) { [generation] _, _ in
                        generation.bump()
                    }
                    defer { listener.stop() }
                    // Queries on one connection run in order: once this answers, LISTEN has too.
                    try await roundTrip(connection)
                    let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
                    generation.listening(wake: wake)
                    defer { generation.notListening() }
                    try await withTaskCancellationHandler {
                        for await _ in wakes {
                            let waiting = generation.takeWaiting()
                            guard !waiting.isEmpty else { continue }
                            // Began after each waiter asked: PostgreSQL sends the notifications of
                            // every commit made before it ahead of its answer.
                            do {
                                try await roundTrip(connection)
                            } catch {
                                // Not listening first, so these find no generation and go to the
                                // database: a failed round trip confirms nothing.
                                generation.notListening()
                                for waiter in waiting { waiter.resume() }
                                throw error
                            }
                            for waiter in waiting { waiter.resume() }
                        }
                    } onCancel: {
                        wake.finish()
                    }
                }
            } catch {
                generation.notListening()
                if Task.isCancelled { return }
                logger.warning(
                    "read-model notifications interrupted; serving from the database until listening again",
                    metadata: ["error": .string(String(describing: error))])
            }
            do { try await Task.sleep(for: .seconds(1)) } catch { return }
        }
    }
}
