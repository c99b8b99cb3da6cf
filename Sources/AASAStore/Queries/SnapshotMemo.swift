import Synchronization

/// One read of each domain's state for the whole of a read-only page. The console's overview asks
/// five of the API's reads about each domain, and two of them (whether the draft differs, the
/// golden URLs) each read the domain's full state: five queries and every stored rule parsed,
/// twice. Inside `SnapshotMemo.$current.withValue(SnapshotMemo()) { … }`, `snapshot(of:)` reads a
/// domain once and every other reader of it waits for that read (they are often asked at once).
///
/// Only for reads: a transaction that writes must see its own state, never a memo of it, so only
/// the console's GET pages set one. An entry is used only for the same domain record (a domain
/// whose version moved in between is read again).
public final class SnapshotMemo: Sendable {
    @TaskLocal public static var current: SnapshotMemo?

    private let reads = Mutex<[Int64: (domain: DomainRecord, read: Task<DomainSnapshot, any Error>)]>([:])

    public init() {}

    func snapshot(
        of domain: DomainRecord, _ read: @escaping @Sendable () async throws -> DomainSnapshot
    ) async throws -> DomainSnapshot {
        let task = reads.withLock { reads in
            if let entry = reads[domain.id], entry.domain == domain { return entry.read }
            let task = Task { try await read() }
            reads[domain.id] = (domain, task)
            return task
        }
        return try await task.value
    }
}
