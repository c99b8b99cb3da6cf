import AASAKernel
import AASAOutbound
import AASARules
import AASAStore
import Logging
import PostgresNIO
import ServiceLifecycle

/// Keeps this replica's served files on the current revisions after the load that runs before the
/// port opens (`buildApplication`): LISTEN `aasa_revisions` (each publish NOTIFYs its host), plus a
/// full reload every `interval` as a safety net for missed notifications, lost connections and
/// deleted domains.
package struct RevisionFollower: Service {
    package let database: Database
    package let served: WellKnownFiles
    package let logger: Logger
    package var interval: Duration = .seconds(30)

    package init(database: Database, served: WellKnownFiles, logger: Logger, interval: Duration = .seconds(30)) {
        self.database = database
        self.served = served
        self.logger = logger
        self.interval = interval
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await listenForever() }
                group.addTask { await reloadForever() }
                await group.waitForAll()
            }
        }
    }

    package func reloadAll() async throws {
        try await served.reloadAll(database, logger: logger)
    }

    /// The start-up load happened before the port opened, and listening reloads once it listens:
    /// this loop is the safety net after that, so it waits first.
    /// A round trip on the listening connection every `heartbeat`, each within 2 s; throws at the
    /// first that is late or fails (the statement's deadline closes the connection).
    private func heartbeats(_ connection: PostgresConnection) async throws {
        let session = DBSession(connection: connection, logger: logger, deadline: .seconds(2))
        while true {
            try await Task.sleep(for: Self.heartbeat)
            for try await _ in try await session.run("SELECT 1 /* aasad served files */") {}
        }
    }

    private func reloadForever() async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            do { try await reloadAll() } catch {
                // reflecting: PSQLError's description is a generic line; its debug form names the
                // SQLSTATE and the cause (the followers' queries carry nothing secret).
                logger.warning(
                    "could not load the current revisions", metadata: ["error": .string(String(reflecting: error))])
            }
        }
    }

    /// How often the listening connection is asked for a round trip, as the read model's is: a
    /// connection whose node was lost or whose path went silent says nothing on its own, and this
    /// follower stayed on such a connection for good (publishes reached the replica only through
    /// the 30 s reload).
    static let heartbeat: Duration = .seconds(5)

    private func listenForever() async {
        while !Task.isCancelled {
            do {
                // The lease has the pool's deadline: a follower waiting without one for a connection to a
                // primary that is gone said nothing and never tried again (a switchover behind PgBouncer).
                try await database.withConnection { connection in
                    try await connection.listen(on: "aasa_revisions") { notifications in
                        // Anything published while we were not listening is picked up here.
                        try await reloadAll()
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            group.addTask {
                                for try await notification in notifications {
                                    let host = notification.payload
                                    try await database.read(logger: logger) {
                                        try await served.refresh(host: host, session: $0)
                                    }
                                }
                                throw ConnectionAlreadyClosed()
                            }
                            group.addTask { try await heartbeats(connection) }
                            // Whichever ends first (the connection closed, or a round trip late
                            // or failed) ends the other, and the follower connects again.
                            try await group.next()
                            group.cancelAll()
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning(
                    "revision notifications interrupted; listening again",
                    metadata: ["error": .string(String(reflecting: error))])
            }
            do { try await Task.sleep(for: .seconds(1)) } catch { return }
        }
    }
}
