import AASAStore
import Synchronization

/// What this replica answers on `/.well-known/apple-app-site-association`: each host's (and
/// alias's) current revision, pre-encoded in memory, with its ETag. Replaced whole on reload and
/// per domain on a revision notification, so a reader always sees one consistent revision.
final class ServedFiles: Sendable {
    struct File: Sendable, Equatable {
        var host: String
        var revision: Int
        var bytes: [UInt8]
        var etag: String
    }

    private let files = Mutex<[String: File]>([:])

    func file(for host: String) -> File? {
        files.withLock { $0[host] }
    }

    /// Replaces everything (start-up and periodic full reloads, which also drop deleted domains).
    func replaceAll(_ revisions: [ServedRevision]) {
        var map: [String: File] = [:]
        for r in revisions { for (name, file) in Self.entries(r) { map[name] = file } }
        files.withLock { $0 = map }
    }

    /// Installs one domain's current revision; stale names of that domain are dropped.
    func update(_ r: ServedRevision) {
        let entries = Self.entries(r)
        files.withLock { map in
            map = map.filter { $0.value.host != r.host }
            for (name, file) in entries { map[name] = file }
        }
    }

    private static func entries(_ r: ServedRevision) -> [(String, File)] {
        let file = File(host: r.host, revision: r.number, bytes: r.bytes, etag: "\"sha256-\(r.sha256)\"")
        return ([r.host] + r.aliases).map { ($0, file) }
    }
}
