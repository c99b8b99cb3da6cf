import AASAStore
import Logging

/// Where a service's reads and transactions run: on the request's one connection when there is a
/// request (`AuthMiddleware` leased it), on a pooled one otherwise (background work, tools).
package struct RequestWork: Sendable {
    package let database: Database
    package let logger: Logger

    package init(database: Database, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    package func transaction<Result: Sendable>(_ body: (DBSession) async throws -> Result) async throws -> Result {
        if let session = RequestState.current?.session {
            return try await session.inTransaction { try await body(session) }
        }
        return try await database.transaction(logger: logger, body)
    }

    /// A transaction that, when `rollingBack`, does all its work and then undoes it, answering what
    /// it would have done: a plan (`aasactl plan`, an import without `apply`) is the change itself,
    /// rolled back, so it can never disagree with the change.
    package func transaction<Result: Sendable>(
        rollingBack: Bool, _ body: (DBSession) async throws -> Result
    ) async throws -> Result {
        do {
            return try await transaction { session in
                let result = try await body(session)
                if rollingBack { throw RolledBack(result: result) }
                return result
            }
        } catch let rolledBack as RolledBack<Result> {
            return rolledBack.result
        }
    }

    /// Thrown out of a rolled-back transaction so that it rolls back, carrying its answer.
    private struct RolledBack<Result: Sendable>: Error {
        package var result: Result
    }

    package func read<Result: Sendable>(_ body: (DBSession) async throws -> Result) async throws -> Result {
        if let session = RequestState.current?.session { return try await body(session) }
        return try await database.read(logger: logger, body)
    }
}
