import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import Synchronization
import Testing

@testable import AASAStore

/// A read-only page reads each domain's state once, however many of its parts ask at once; a
/// domain record that moved in between is read again.
@Suite struct SnapshotMemoTests {
    static func domain(id: Int64, version: Int64) -> DomainRecord {
        DomainRecord(
            id: id, host: "d\(id).example", aliases: [], substitutionVariables: [], defaults: .init(), webRoots: [],
            createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0), version: version,
            appOrder: [], orderVersion: 0, currentRevision: nil, autoPublish: false, legacyRootPath: false,
            expectationsVersion: 0)
    }

    /// Counts the reads that reach the database, each taking a while (so that asks overlap).
    final class Reads: Sendable {
        private let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .relaxed) }

        func read(_ domain: DomainRecord) async throws -> DomainSnapshot {
            count.add(1, ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(20))
            return DomainSnapshot(domain: domain, grants: [], apps: [], ruleSets: [])
        }
    }

    @Test func partsAskingAtOnceShareOneRead() async throws {
        let memo = SnapshotMemo()
        let reads = Reads()
        let first = Self.domain(id: 1, version: 1)
        let versions = try await withThrowingTaskGroup(of: Int64.self) { group in
            for _ in 0..<5 {
                group.addTask { try await memo.snapshot(of: first) { try await reads.read(first) }.domain.version }
            }
            return try await group.reduce(into: [Int64]()) { $0.append($1) }
        }
        #expect(versions == [1, 1, 1, 1, 1])
        #expect(reads.value == 1)
        // Another domain, and the same domain at another version, are read.
        let other = Self.domain(id: 2, version: 1)
        _ = try await memo.snapshot(of: other) { try await reads.read(other) }
        let moved = Self.domain(id: 1, version: 2)
        #expect(try await memo.snapshot(of: moved) { try await reads.read(moved) }.domain.version == 2)
        #expect(reads.value == 3)
        // A fresh memo (the next page) reads again.
        _ = try await SnapshotMemo().snapshot(of: first) { try await reads.read(first) }
        #expect(reads.value == 4)
    }
}
