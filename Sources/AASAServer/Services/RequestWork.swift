import AASAStore
import Logging

/// Where a service's reads and transactions run: on the request's one connection when there is a
/// request (`AuthMiddleware` leased it), on a pooled one otherwise (background work, tools).
struct RequestWork: Sendable {
    let database: Database
    let logger: Logger

    func transaction<Result: Sendable>(_ body: (DBSession) async throws -> Result) async throws -> Result {
        if let session = RequestState.current?.session {
            return try await session.inTransaction { try await body(session) }
        }
        return try await database.transaction(logger: logger, body)
    }

    func read<Result: Sendable>(_ body: (DBSession) async throws -> Result) async throws -> Result {
        if let session = RequestState.current?.session { return try await body(session) }
        return try await database.read(logger: logger, body)
    }
}
