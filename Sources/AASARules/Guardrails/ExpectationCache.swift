import AASAKernel
import AASAModel
import AASAStore
import Synchronization

/// Each domain's expectations as last read, with their URLs split once, kept under the domain's
/// `expectations_version` (moved by a trigger on every write to them, drawn from a sequence so a
/// version is never reused). A write then reads one number instead of every expectation: what
/// keeps checking a thousand golden URLs within a few milliseconds of a write.
///
/// One cache per server (per database): domain IDs and versions mean nothing across databases.
package final class ExpectationCache: Sendable {
    package struct Prepared: Sendable {
        package let record: ExpectationRecord
        package let url: SplitURL
        /// The app it names is an Android app: assetlinks.json answers it (an app's platform never changes).
        package let isAndroid: Bool
    }

    private struct Entry {
        package let version: Int64
        package let items: [Prepared]
    }

    private let entries = Mutex<[Int64: Entry]>([:])

    /// The domain's expectations as this transaction sees them.
    package func expectations(domainID: Int64, session: DBSession) async throws -> [Prepared] {
        // Read in the transaction, not taken from a domain row read earlier: the transaction may
        // itself have changed the expectations since (a manifest's `expect:`).
        let version = try await session.expectationsVersion(domainID: domainID)
        if let entry = entries.withLock({ $0[domainID] }), entry.version == version { return entry.items }
        let records = try await session.listExpectations(domainID: domainID)
        let android = try await session.androidAppIDs(among: Array(Set(records.compactMap(\.appID))))
        let items = records.map {
            Prepared(record: $0, url: SplitURL($0.url), isAndroid: $0.appID.map(android.contains) ?? false)
        }
        entries.withLock { $0[domainID] = Entry(version: version, items: items) }
        return items
    }
}
