import AASAStore
import PostgresNIO
import ServiceLifecycle

/// The pool as a service: opens the database's `ClientStart` as it starts the pool's `run()`, so
/// the start-up check and the background services lease only once the pool runs.
struct DatabaseService: Service {
    let database: Database

    init(_ database: Database) { self.database = database }

    func run() async throws {
        // run() registers itself before it first suspends; the waiters this releases resume on
        // other tasks, after this one has gone on into it.
        database.start?.open()
        await database.client.run()
    }
}
