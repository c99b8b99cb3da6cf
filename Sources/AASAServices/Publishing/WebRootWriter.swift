import AASAKernel
import AASAOutbound
import AASARules
import CoreFoundation
// Named: with member import visibility, `stat` may be found through Dispatch's C module.
import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The C library's names, spelled once per platform (`write` and `stat` are also names of ours).
#if canImport(Glibc)
    private let systemWrite = Glibc.write
    private typealias FileStatus = Glibc.stat
#elseif canImport(Darwin)
    private let systemWrite = Darwin.write
    private typealias FileStatus = Darwin.stat
#endif

/// Writes a domain's file into a web root so that a reader sees the old file or the new one, never
/// part of one: a temporary file in the same directory, fsync of the file, rename over the target,
/// fsync of the directory. Paths come from the domain's configured web roots only; the host name
/// never becomes part of a path. A `.well-known` that is a symlink leaving the root is refused, and
/// so is a root that resolves (through symlinks) outside the configured bases: the check that
/// registration made on the path as written is made again, on the real directory, at every write.
package enum WebRootWriter {
    package static let fileName = PublishedFile.aasa.name
    package static let assetLinksName = PublishedFile.assetLinks.name

    package struct Failure: Error, CustomStringConvertible, Sendable {
        package var description: String
    }

    /// Writes `bytes` to `<root>/.well-known/apple-app-site-association`, and to
    /// `<root>/apple-app-site-association` when `legacy`. Returns the paths written.
    package static func write(_ bytes: [UInt8], root: String, legacy: Bool, bases: [String] = []) throws -> [String] {
        let realRoot = try resolvedRoot(root, bases: bases)
        let wellKnown = try wellKnownDirectory(realRoot, create: true)
        var written = [try replace(directory: wellKnown, name: fileName, bytes: bytes)]
        if legacy { written.append(try replace(directory: realRoot, name: fileName, bytes: bytes)) }
        return written
    }

    /// Writes `bytes` to `<root>/.well-known/assetlinks.json`, the same way. Returns the path written.
    package static func writeAssetLinks(_ bytes: [UInt8], root: String, bases: [String] = []) throws -> String {
        try writeWellKnown(assetLinksName, bytes, root: root, bases: bases)
    }

    /// Writes `bytes` to `<root>/.well-known/<name>` (a name of `PublishedFile`), the same way.
    package static func writeWellKnown(_ name: String, _ bytes: [UInt8], root: String, bases: [String] = []) throws
        -> String
    {
        let realRoot = try resolvedRoot(root, bases: bases)
        return try replace(directory: try wellKnownDirectory(realRoot, create: true), name: name, bytes: bytes)
    }

    /// The root's real directory, refused when it lies outside every base (when there are bases).
    package static func resolvedRoot(_ root: String, bases: [String]) throws -> String {
        let realRoot = try resolvedDirectory(root, what: "web root")
        guard !bases.isEmpty else { return realRoot }
        let realBases = bases.map { base in (try? resolvedDirectory(base, what: "base")) ?? base }
        guard realBases.contains(where: { realRoot == $0 || realRoot.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") })
        else {
            throw Failure(
                description:
                    "web root \(root) resolves to \(realRoot), outside \(bases.joined(separator: " and ")): refused")
        }
        return realRoot
    }

    /// `<root>/.well-known`, made when missing and `create`; refused when it is a symlink leaving
    /// the root or not a directory.
    package static func wellKnownDirectory(_ realRoot: String, create: Bool) throws -> String {
        let wellKnown = realRoot + "/.well-known"
        var info = FileStatus()
        if lstat(wellKnown, &info) != 0 {
            guard errno == ENOENT else { throw failure("cannot inspect \(wellKnown)") }
            guard create else { throw Failure(description: "\(wellKnown) does not exist") }
            guard mkdir(wellKnown, 0o755) == 0 || errno == EEXIST else { throw failure("cannot create \(wellKnown)") }
        } else if (info.st_mode & S_IFMT) == S_IFLNK {
            let target = try resolvedDirectory(wellKnown, what: ".well-known")
            guard target.hasPrefix(realRoot + "/") else {
                throw Failure(description: "\(wellKnown) is a symlink to \(target), outside the web root: refused")
            }
        } else if (info.st_mode & S_IFMT) != S_IFDIR {
            throw Failure(description: "\(wellKnown) exists and is not a directory")
        }
        return wellKnown
    }

    /// The file's bytes (`name`: the AASA's by default), or nil when it does not exist (for reconciliation).
    package static func read(root: String, name: String = fileName) -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: root + "/.well-known/" + name) else { return nil }
        return [UInt8](data)
    }

    /// The legacy copy at the root itself, or nil when it does not exist.
    package static func readRoot(root: String, name: String = fileName) -> [UInt8]? {
        FileManager.default.contents(atPath: root + "/" + name).map { [UInt8]($0) }
    }

    /// Removes temporary files a killed writer left behind; returns how many. Called with the
    /// domain's publishing lock held, so no writer of this domain is running anywhere. It goes only
    /// where the writer would: never through a root outside the bases or a `.well-known` symlink
    /// that leaves the root.
    @discardableResult
    package static func removeTemporaries(root: String, legacy: Bool, bases: [String] = []) -> Int {
        var removed = 0
        for path in temporaries(root: root, legacy: legacy, bases: bases) where unlink(path) == 0 { removed += 1 }
        return removed
    }

    /// Whether a write left a temporary file in the root (reconciliation's pass without the lock).
    package static func hasTemporaries(root: String, legacy: Bool, bases: [String] = []) -> Bool {
        !temporaries(root: root, legacy: legacy, bases: bases).isEmpty
    }

    /// The paths of the temporary files a write (`replace`) left in the root, if any.
    private static func temporaries(root: String, legacy: Bool, bases: [String]) -> [String] {
        guard let realRoot = try? resolvedRoot(root, bases: bases) else { return [] }
        var paths: [String] = []
        let wellKnown = try? wellKnownDirectory(realRoot, create: false)
        for directory in (wellKnown.map { [$0] } ?? []) + (legacy ? [realRoot] : []) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            for name in names
            where PublishedFile.allCases.contains(where: { name.hasPrefix(".\($0.name).") }) && name.hasSuffix(".tmp") {
                paths.append(directory + "/" + name)
            }
        }
        return paths
    }

    private static func replace(directory: String, name: String, bytes: [UInt8]) throws -> String {
        let target = directory + "/" + name
        let temporary = directory + "/.\(name).\(UUID().uuidString).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { throw failure("cannot create \(temporary)") }
        var ok = false
        defer { if !ok { unlink(temporary) } }
        do {
            defer { close(fd) }
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw failure("cannot write \(temporary)")
                }
                offset += n
            }
            guard fsync(fd) == 0 else { throw failure("cannot fsync \(temporary)") }
        }
        guard rename(temporary, target) == 0 else { throw failure("cannot rename into \(target)") }
        ok = true
        let dir = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            defer { close(dir) }
            guard fsync(dir) == 0 else { throw failure("cannot fsync \(directory)") }
        }
        return target
    }

    private static func resolvedDirectory(_ path: String, what: String) throws -> String {
        guard let resolved = realpath(path, nil) else { throw failure("\(what) \(path) is not usable") }
        defer { free(resolved) }
        let real = String(cString: resolved)
        var info = FileStatus()
        guard stat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw Failure(description: "\(what) \(path) is not a directory")
        }
        return real
    }

    private static func failure(_ what: String) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(errno)))")
    }
}
