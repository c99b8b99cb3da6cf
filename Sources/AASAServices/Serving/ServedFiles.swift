import AASAKernel
import AASAOutbound
import AASARules
import AASAStore
import NIOCore
import Synchronization

/// What this replica answers on `/.well-known/apple-app-site-association`: each host's (and
/// alias's) current revision, pre-encoded in memory, with its ETag. Replaced whole on reload and
/// per domain on a publish or a revision notification, so a reader always sees one consistent
/// revision.
///
/// A full reload reads the database before it installs what it read, and a publish can land in
/// between. Installing that older snapshot would un-publish the domain on this replica until the
/// next reload (CI met this: the proxied file was 404 right after a publish). So every update is
/// stamped with a clock, a reload says when it started reading, and a domain updated after that
/// keeps its newer file. Per domain, revision numbers only grow, so an update never goes back.
package final class ServedFiles: Sendable {
    package struct File: Sendable, Equatable {
        package var host: String
        package var revision: Int
        package var etag: String
        /// The file's bytes, held once: every answer shares this storage rather than copying the
        /// file (a client pipelining thousands of requests would otherwise hold a copy per answer).
        package var buffer: ByteBuffer

        package init(host: String, revision: Int, bytes: [UInt8], etag: String) {
            self.host = host
            self.revision = revision
            self.etag = etag
            buffer = ByteBuffer(bytes: bytes)
        }

        /// The bytes as an array, for the few readers that want one (the console's view).
        package var bytes: [UInt8] { Array(buffer.readableBytesView) }
    }

    /// When a reload began reading, on this object's clock, and which reload it is.
    package struct ReloadStart: Sendable {
        fileprivate let tick: UInt64
        fileprivate let sequence: UInt64
    }

    private struct State {
        package var files: [String: File] = [:]
        /// Per domain (primary host): the clock tick of its last update. One entry per domain
        /// ever updated; never pruned, because a reload that began earlier may still be reading.
        package var updated: [String: UInt64] = [:]
        package var clock: UInt64 = 0
        package var reloadsBegun: UInt64 = 0
        /// The latest-begun reload installed so far: an earlier-begun one that finishes later read
        /// older data and is dropped.
        package var reloadInstalled: UInt64 = 0
    }

    private let state = Mutex(State())

    /// How many names (hosts and aliases) are served.
    package var count: Int { state.withLock { $0.files.count } }

    package func file(for host: String) -> File? {
        state.withLock { $0.files[host] }
    }

    /// Call before reading the database for `replaceAll`.
    package func beginReload() -> ReloadStart {
        state.withLock { state in
            state.reloadsBegun += 1
            return ReloadStart(tick: state.clock, sequence: state.reloadsBegun)
        }
    }

    /// Replaces everything (start-up and periodic full reloads, which also drop deleted domains),
    /// except domains updated since `start`: what they hold is newer than what the reload read.
    package func replaceAll(_ revisions: [ServedRevision], readSince start: ReloadStart) {
        var map: [String: File] = [:]
        for r in revisions { for (name, file) in Self.entries(r) { map[name] = file } }
        state.withLock { state in
            guard start.sequence > state.reloadInstalled else { return }
            state.reloadInstalled = start.sequence
            let newer = Set(state.updated.filter { $0.value > start.tick }.keys)
            if !newer.isEmpty {
                map = map.filter { !newer.contains($0.value.host) }
                for (name, file) in state.files where newer.contains(file.host) { map[name] = file }
            }
            state.files = map
        }
    }

    /// Installs one domain's current revision; stale names of that domain are dropped. An older
    /// revision than the one served (a late caller) is ignored.
    package func update(_ r: ServedRevision) {
        let entries = Self.entries(r)
        state.withLock { state in
            if let current = state.files[r.host], current.host == r.host, current.revision > r.number { return }
            state.clock += 1
            state.updated[r.host] = state.clock
            state.files = state.files.filter { $0.value.host != r.host }
            for (name, file) in entries { state.files[name] = file }
        }
    }

    /// Stops serving a deleted domain at once instead of at the next reload.
    package func remove(host: String) {
        state.withLock { state in
            state.clock += 1
            state.updated[host] = state.clock
            state.files = state.files.filter { $0.value.host != host }
        }
    }

    private static func entries(_ r: ServedRevision) -> [(String, File)] {
        let file = File(host: r.host, revision: r.number, bytes: r.bytes, etag: "\"sha256-\(r.sha256)\"")
        return ([r.host] + r.aliases).map { ($0, file) }
    }
}
