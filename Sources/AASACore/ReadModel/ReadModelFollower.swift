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
    /// `deadline`. Past it, `late` runs first (the waiting reads go to the database at once, whatever
    /// closing the connection then takes), then the connection is closed, which ends the query, and
    /// this throws, so the follower connects again: a late answer can no longer count.
    private func roundTrip(
        _ connection: PostgresConnection, deadline: Duration = .seconds(2), late: @Sendable () -> Void = {}
    ) async throws {
        let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                for try await _ in try await connection.query("SELECT 1 /* aasad read model */", logger: logger) {}
                return true
            }
            group.addTask {
                try await Task.sleep(for: deadline)
                return false
            }
            let answered = try await group.next() ?? false
            if !answered {
                late()
                logger.warning("the read model's round trip took over \(deadline); connecting again")
                try? await connection.close()
            }
            group.cancelAll()
            return answered
        }
        guard answered else { throw RoundTripTimedOut() }
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
                            // A failed or late round trip confirms nothing: not listening
                            // first, so these find no generation and go to the database.
                            let release: @Sendable () -> Void = {
                                generation.notListening()
                                for waiter in waiting { waiter.resume() }
                            }
                            do {
                                try await roundTrip(connection, late: release)
                            } catch {
                                release()
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
