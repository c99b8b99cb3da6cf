import PostgresNIO

/// What a repository can say about a write that the API must turn into a status code.
public enum StoreError: Error, Sendable, Equatable {
    /// A unique constraint refused the row (`constraint` names which).
    case duplicate(constraint: String)
    /// A foreign key or restrict rule refused the change (the row is still referenced).
    case inUse(constraint: String)
}

extension PSQLError {
    public var sqlState: String? { serverInfo?[.sqlState] }
    public var constraintName: String { serverInfo?[.constraintName] ?? "" }
    public var isUniqueViolation: Bool { sqlState == "23505" }
    public var isForeignKeyViolation: Bool { sqlState == "23503" }
}

extension DBSession {
    /// Runs `query`, turning unique and foreign-key violations into `StoreError`.
    @discardableResult
    public func write(_ query: PostgresQuery) async throws -> PostgresRowSequence {
        try await mappingViolations { try await run(query) }
    }

    /// Runs a statement that returns rows (`INSERT … RETURNING`) and reads them, turning
    /// violations into `StoreError` there too: PostgreSQL reports them after the rows'
    /// description, so they surface while the rows are read, not when the statement is sent.
    public func writeReturning<each T: PostgresDecodable & Sendable>(
        _ query: PostgresQuery, as types: (repeat each T).Type
    ) async throws -> [(repeat each T)] {
        try await mappingViolations { try await all(query, as: types) }
    }

    private func mappingViolations<Result>(_ body: () async throws -> Result) async throws -> Result {
        do {
            return try await body()
        } catch let error as PSQLError where error.isUniqueViolation {
            throw StoreError.duplicate(constraint: error.constraintName)
        } catch let error as PSQLError where error.isForeignKeyViolation {
            throw StoreError.inUse(constraint: error.constraintName)
        }
    }
}
