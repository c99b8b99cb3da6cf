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

    /// How often an idle follower asks its connection for a round trip: a listening connection
    /// whose backend was stopped or whose network path died says nothing on its own (issue 50).
    static let heartbeat: Duration = .seconds(5)

    /// One query answered to its end (its rows read, so its completion has been received), within
    /// `deadline`. Past it, `late` runs first (the waiting reads go to the database at once), then
    /// the statement's deadline closes the connection and this throws, so the follower connects
    /// again: a late answer can no longer count. Nothing here waits for the query itself after its
    /// deadline: PostgresNIO may never complete a query sent on a connection that just closed
    /// (`StatementDeadline`), which left this follower deaf for good before.
    private func roundTrip(
        _ connection: PostgresConnection, deadline: Duration = .seconds(2), late: @Sendable () -> Void = {}
    ) async throws {
        let session = DBSession(connection: connection, logger: logger, deadline: deadline)
        do {
            for try await _ in try await session.run("SELECT 1 /* aasad read model */") {}
        } catch let error as StatementDeadlineExceeded {
            late()
            logger.warning("the read model's round trip took over \(deadline); connecting again")
            throw error
        }
    }

    private func listenForever() async {
        while !Task.isCancelled {
            do {
                // The lease has the pool's deadline: a follower waiting without one for a connection to a
                // primary that is gone said nothing and never tried again (a switchover behind PgBouncer).
                try await database.withConnection { connection in
                    let listener = try await connection.addListenerIfOpen(channel: Self.channel) {
                        [generation] _, _ in generation.bump()
                    }
                    defer { listener.stop() }
                    // Queries on one connection run in order: once this answers, LISTEN has too.
                    try await roundTrip(connection)
                    let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
                    // A connection PostgreSQL closes (pg_terminate_backend, a restart, a failover)
                    // ends the wait at once, whether or not a read is waiting.
                    connection.closeFuture.whenComplete { _ in wake.finish() }
                    let beats = Task {
                        while !Task.isCancelled {
                            try await Task.sleep(for: Self.heartbeat)
                            wake.yield()
                        }
                    }
                    defer { beats.cancel() }
                    generation.listening(wake: wake)
                    defer { generation.notListening() }
                    try await withTaskCancellationHandler {
                        var lastTrip = ContinuousClock.now
                        for await _ in wakes {
                            let waiting = generation.takeWaiting()
                            if waiting.isEmpty {
                                // A heartbeat: a round trip when none ran for a while.
                                guard ContinuousClock.now - lastTrip >= Self.heartbeat else { continue }
                                try await roundTrip(connection, late: { generation.notListening() })
                                lastTrip = ContinuousClock.now
                                continue
                            }
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
                            lastTrip = ContinuousClock.now
                            for waiter in waiting { waiter.resume() }
                        }
                    } onCancel: {
                        wake.finish()
                    }
                    if !Task.isCancelled { throw ConnectionAlreadyClosed() }
                }
            } catch {
                generation.notListening()
                if Task.isCancelled { return }
                logger.warning(
                    "read-model notifications interrupted; serving from the database until listening again",
                    // reflecting: PSQLError's description is a generic line; its debug form names the
                    // SQLSTATE and the cause (the followers' queries carry nothing secret).
                    metadata: ["error": .string(String(reflecting: error))])
            }
            do { try await Task.sleep(for: .seconds(1)) } catch { return }
        }
    }
}
