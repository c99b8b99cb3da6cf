import NIOCore
import PostgresNIO

extension PostgresConnection {
    package struct ClosedBeforeListening: Error, CustomStringConvertible {
        package var description: String { "the connection closed before its listener could be added" }
    }

    /// `addListener`, refused on a connection that has closed instead of ending the process.
    ///
    /// PostgresNIO (1.33) writes the listener to its channel without a promise. On a channel that has
    /// just closed (PgBouncer ending a client during a switchover, a restart, a failover) the write
    /// fails, the listener is dropped unused, and its deinit traps: "Notification closure had not
    /// been used" ended replicas in 7 of 11 switchovers. Added on the connection's event loop while
    /// the channel is still active, the write reaches the channel handler at once (a write on the
    /// event loop runs through the pipeline synchronously), and the handler fails its listeners,
    /// never drops them, when the connection closes later.
    ///
    /// The closure API is kept (rather than `listen(on:)`'s sequence) because the read model needs
    /// each notification handled on the event loop as it is read, before the answer of the round
    /// trip that follows it: a sequence's consumer runs later, and read-your-writes would not hold.
    package func addListenerIfOpen(
        channel: String,
        handler: @Sendable @escaping (PostgresListenContext, PostgresMessage.NotificationResponse) -> Void
    ) async throws -> PostgresListenContext {
        try await eventLoop.submit {
            guard !self.isClosed else { throw ClosedBeforeListening() }
            return self.addListener(channel: channel, handler: handler)
        }.get()
    }
}
