import Logging
import PostgresNIO

/// The pooled PostgreSQL client and the two ways the service talks to it: a transaction for every
/// write (with its audit event), a plain session for reads. `client` must be run as a service.
public struct Database: Sendable {
    public let client: PostgresClient

    public init(client: PostgresClient) {
        self.client = client
    }

    /// Runs `body` in one transaction: committed if it returns, rolled back if it throws, and the
    /// error passes through unchanged (PostgresNIO's own helper wraps it).
    public func transaction<Result: Sendable>(
        logger: Logger,
        _ body: (DBSession) async throws -> Result
    ) async throws -> Result {
        try await client.withConnection { connection in
            let session = DBSession(connection: connection, logger: logger)
            try await connection.query("BEGIN", logger: logger)
            do {
                let result = try await body(session)
                try await connection.query("COMMIT", logger: logger)
                return result
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    /// Runs `body` on one pooled connection, outside a transaction.
    public func read<Result: Sendable>(logger: Logger, _ body: (DBSession) async throws -> Result) async throws -> Result {
        try await client.withConnection { connection in
            try await body(DBSession(connection: connection, logger: logger))
        }
    }
}

/// One connection lent for a transaction or a read; the query helpers live in extensions.
public struct DBSession: Sendable {
    public let connection: PostgresConnection
    public let logger: Logger

    public init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    @discardableResult
    public func run(_ query: PostgresQuery) async throws -> PostgresRowSequence {
        try await connection.query(query, logger: logger)
    }

    /// Every row of `query` decoded as `T`.
    public func all<each T: PostgresDecodable>(_ query: PostgresQuery, as types: (repeat each T).Type) async throws -> [(repeat each T)] {
        var out: [(repeat each T)] = []
        for try await row in try await run(query).decode(types) { out.append(row) }
        return out
    }

    /// The first row of `query` decoded as `T`, or nil.
    public func first<each T: PostgresDecodable>(_ query: PostgresQuery, as types: (repeat each T).Type) async throws -> (repeat each T)? {
        for try await row in try await run(query).decode(types) { return row }
        return nil
    }
}
