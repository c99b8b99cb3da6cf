import AASAStore
import CoreFoundation
import Crypto
import Foundation
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One served aasactl, answered with exactly the bytes its `Content-Length` and checksum describe
/// (issue 49: after an in-place upgrade the answer overran the length hashed at start-up, and the
/// next response on a kept-alive connection began with binary bytes). Each request opens the file,
/// and its descriptor is what is measured, hashed and sent: the hash is computed again whenever the
/// file's identity (device, inode, size, modification time) differs from the one hashed last.
final class CLIBinaryFile: Sendable {
    struct Identity: Equatable, Sendable {
        var device: UInt64
        var inode: UInt64
        var size: Int
        var modified: timespec

        static func == (a: Identity, b: Identity) -> Bool {
            a.device == b.device && a.inode == b.inode && a.size == b.size
                && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
        }
    }

    /// An open descriptor of the file, closed when the last answer holding it is gone.
    final class Descriptor: Sendable {
        let fd: Int32
        init(_ fd: Int32) { self.fd = fd }
        deinit { close(fd) }
    }

    /// The file as one request serves it.
    struct Opened: Sendable {
        var descriptor: Descriptor
        var size: Int
        var sha256: String
    }

    let path: String
    private let hashed = Mutex<(Identity, String)?>(nil)

    init(path: String) { self.path = path }

    /// The file now, or nil when it cannot be opened.
    func open() async throws -> Opened? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        let descriptor = Descriptor(fd)
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let identity = Identity(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int(info.st_size), modified: info.st_mtim)
        if let (known, sha256) = hashed.withLock({ $0 }), known == identity {
            return Opened(descriptor: descriptor, size: identity.size, sha256: sha256)
        }
        let sha256 = try await NIOThreadPool.singleton.runIfActive {
            try Self.hash(descriptor.fd, size: identity.size)
        }
        hashed.withLock { $0 = (identity, sha256) }
        return Opened(descriptor: descriptor, size: identity.size, sha256: sha256)
    }

    /// The SHA-256 of the first `size` bytes of `fd`, read with pread (the offset is never shared).
    static func hash(_ fd: Int32, size: Int) throws -> String {
        var hasher = SHA256()
        var offset = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while offset < size {
            let n = chunk.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress, min($0.count, size - offset), off_t(offset))
            }
            guard n > 0 else { throw CLIFileChanged() }
            hasher.update(data: chunk[0..<n])
            offset += n
        }
        return Hex.string(hasher.finalize())
    }
}

/// The served file became shorter than it was when its answer began.
struct CLIFileChanged: Error, Sendable {}

extension CLIBinaryFile.Opened {
    /// The `want` bytes at `offset`, read off the event loop; a file cut shorter meanwhile throws,
    /// which ends the connection rather than letting the answer fall short of its length.
    func chunk(at offset: Int, allocator: ByteBufferAllocator) async throws -> ByteBuffer {
        let want = min(1 << 16, size - offset)
        let descriptor = self.descriptor
        return try await NIOThreadPool.singleton.runIfActive {
            var buffer = allocator.buffer(capacity: want)
            let n = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) {
                max(0, pread(descriptor.fd, $0.baseAddress, want, off_t(offset)))
            }
            guard n > 0 else { throw CLIFileChanged() }
            return buffer
        }
    }
}
