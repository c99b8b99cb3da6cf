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
        do {
            return try await run(query)
        } catch let error as PSQLError where error.isUniqueViolation {
            throw StoreError.duplicate(constraint: error.constraintName)
        } catch let error as PSQLError where error.isForeignKeyViolation {
            throw StoreError.inUse(constraint: error.constraintName)
        }
    }
}
