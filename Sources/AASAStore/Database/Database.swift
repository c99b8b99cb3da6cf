import Logging
import PostgresNIO
import Synchronization

/// Whether a connection was leased, shared by the lease and its timer.
private final class LeaseFlag: Sendable {
    let value = Mutex(false)
}

/// A value the compiler cannot prove may cross tasks, here a closure that a task group runs and
/// awaits before the call that made it returns.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// No pooled connection came within `Database.leaseTimeout`: PostgreSQL is down or unreachable.
public struct DatabaseUnavailable: Error, Sendable {}

/// The pooled PostgreSQL client and the two ways the service talks to it: a transaction for every
/// write (with its audit event), a plain session for reads. `client` must be run as a service.
public struct Database: Sendable {
    public let client: PostgresClient
    /// How long a request waits for a pooled connection before it answers "unavailable". Without
    /// it, a request made while PostgreSQL is down waits for the pool's circuit breaker (60 s).
    public var leaseTimeout: Duration
    /// Set when the pool runs as a `DatabaseService`: leases wait until its `run()` has begun.
    public let start: ClientStart?
    /// Each statement's deadline on this pool's sessions (`DBSession`); nil: none (tools and
    /// tests that build databases).
    public var statementDeadline: Duration?

    public init(
        client: PostgresClient, leaseTimeout: Duration = .seconds(5), start: ClientStart? = nil,
        statementDeadline: Duration? = DBSession.defaultDeadline
    ) {
        self.client = client
        self.leaseTimeout = leaseTimeout
        self.start = start
        self.statementDeadline = statementDeadline
    }

    /// Runs `body` on a pooled connection, giving up with `DatabaseUnavailable` when none comes
    /// within `leaseTimeout` (the lease is cancelled; a running `body` is never cut short).
    ///
    /// A request takes one lease for all its work (authentication, reads, writes: see
    /// `AuthMiddleware`), so this timer is paid once per request.
    public func withConnection<Result: Sendable>(
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        if let start { await start.wait() }
        let leased = LeaseFlag()
        let client = client
        let timeout = leaseTimeout
        return try await withoutActuallyEscaping(body) { body in
            // The group is awaited before this returns, so `body` never outlives this call.
            let work = UncheckedSendable(body)
            return try await withThrowingTaskGroup(of: Result?.self) { group in
                group.addTask {
                    try await client.withConnection { connection in
                        leased.value.withLock { $0 = true }
                        return try await work.value(connection)
                    }
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    if !leased.value.withLock({ $0 }) { throw DatabaseUnavailable() }
                    return nil
                }
                while let next = try await group.next() {
                    if let value = next {
                        group.cancelAll()
                        return value
                    }
                }
                throw DatabaseUnavailable()
            }
        }
    }

    /// Runs `body` in one transaction: committed if it returns, rolled back if it throws, and the
    /// error passes through unchanged (PostgresNIO's own helper wraps it).
    public func transaction<Result: Sendable>(
        logger: Logger,
        _ body: (DBSession) async throws -> Result
    ) async throws -> Result {
        try await withConnection { connection in
            let session = DBSession(connection: connection, logger: logger, deadline: statementDeadline)
            return try await session.inTransaction { try await body(session) }
        }
    }

    /// Runs `body` on one pooled connection, outside a transaction.
    public func read<Result: Sendable>(logger: Logger, _ body: (DBSession) async throws -> Result) async throws
        -> Result
    {
        try await withConnection { connection in
            try await body(DBSession(connection: connection, logger: logger, deadline: statementDeadline))
        }
    }
}

/// One connection lent for a transaction or a read; the query helpers live in extensions.
public struct DBSession: Sendable {
    /// How long one statement may take to be answered (its rows' description; reading the rows
    /// follows) before its connection is closed and it fails (`StatementDeadline`). No request
    /// statement comes near it; migrations run without one.
    public static let defaultDeadline: Duration = .seconds(15)

    public let connection: PostgresConnection
    public let logger: Logger
    public let deadline: Duration?

    public init(connection: PostgresConnection, logger: Logger, deadline: Duration? = DBSession.defaultDeadline) {
        self.connection = connection
        self.logger = logger
        self.deadline = deadline
    }

    @discardableResult
    public func run(_ query: PostgresQuery) async throws -> PostgresRowSequence {
        let connection = connection
        let logger = logger
        return try await StatementDeadline.run(on: connection, deadline: deadline) {
            try await connection.query(query, logger: logger)
        }
    }

    /// Every row of `query` decoded as `T`.
    public func all<each T: PostgresDecodable & Sendable>(_ query: PostgresQuery, as types: (repeat each T).Type)
        async throws -> [(repeat each T)]
    {
        var out: [(repeat each T)] = []
        for try await row in try await run(query).decode(types) { out.append(row) }
        return out
    }

    /// The first row of `query` decoded as `T`, or nil.
    public func first<each T: PostgresDecodable & Sendable>(_ query: PostgresQuery, as types: (repeat each T).Type)
        async throws -> (repeat each T)?
    {
        for try await row in try await run(query).decode(types) { return row }
        return nil
    }
}
