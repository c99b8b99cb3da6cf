import NIOCore
import PostgresNIO
import Synchronization

/// A statement that did not answer within its deadline: the connection was closed (so the pool
/// drops it) and the request fails alone, as 503 with `Retry-After`.
public struct StatementDeadlineExceeded: Error, Sendable, CustomStringConvertible {
    public var deadline: Duration
    public init(deadline: Duration) { self.deadline = deadline }
    public var description: String { "a statement got no answer within \(deadline); its connection was closed" }
}

/// A statement about to be sent on a connection PostgreSQL already closed (a failover, a restart,
/// `pg_terminate_backend`).
public struct ConnectionAlreadyClosed: Error, Sendable, CustomStringConvertible {
    public init() {}
    public var description: String { "the database closed this connection" }
}

/// Every statement the service sends has a deadline (issue 50). PostgresNIO writes a query to its
/// channel without a promise for the write (`PostgresConnection.swift`, `channel.write(…, promise:
/// nil)`): on a channel that has just closed, the write fails unseen and the query's own promise is
/// never completed, so the request that sent it waited forever, and so did graceful shutdown. Seen
/// after `pg_terminate_backend` and PostgreSQL restarts, and reproduced in a test: the query
/// neither runs nor fails, and cancellation does not reach it.
///
/// So the statement runs in a task of its own, raced against a timer on the connection's event
/// loop. Whichever ends first answers; a statement past its deadline closes its connection, and
/// its task, if PostgresNIO never completes it, is left behind (a few bytes, only after a fault).
enum StatementDeadline {
    static func run<Result: Sendable>(
        on connection: PostgresConnection, deadline: Duration?,
        _ statement: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        guard !connection.isClosed else { throw ConnectionAlreadyClosed() }
        guard let deadline else { return try await statement() }
        let answered = Answered()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            let timer = connection.eventLoop.scheduleTask(in: .nanoseconds(Int64(deadline.nanoseconds))) {
                guard answered.claim() else { return }
                // Closed before the caller goes on: a connection handed back to the pool still open
                // would be lent to the next request with the stuck statement on it.
                connection.close().whenComplete { _ in
                    continuation.resume(throwing: StatementDeadlineExceeded(deadline: deadline))
                }
            }
            Task {
                do {
                    let result = try await statement()
                    timer.cancel()
                    if answered.claim() { continuation.resume(returning: result) }
                } catch {
                    timer.cancel()
                    if answered.claim() { continuation.resume(throwing: error) }
                }
            }
        }
    }

    /// Set once, by whichever of the statement and the timer ends first.
    private final class Answered: Sendable {
        private let done = Atomic(false)
        func claim() -> Bool { !done.exchange(true, ordering: .acquiringAndReleasing) }
    }
}

extension Duration {
    /// Whole nanoseconds, saturating.
    fileprivate var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole &+ attoseconds / 1_000_000_000
    }
}
