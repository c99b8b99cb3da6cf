import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASATestSupport
import Foundation
import Testing

/// A small tmpfs mounted for one test: a disk that really fills up, or that is really read-only.
/// The tests run as root in CI, where file modes prove nothing (root writes through 0555), so a
/// mount is the honest way to make a web root refuse writes. Needs root and mount privilege.
final class Tmpfs: Sendable {
    let path: String

    /// True when this process may mount (root with CAP_SYS_ADMIN): probed once with a real mount.
    static let available: Bool = {
        guard getuid() == 0, let probe = try? PublishingTests.tempDir() else { return false }
        defer {
            _ = try? command("/bin/umount", [probe])
            try? FileManager.default.removeItem(atPath: probe)
        }
        return (try? command("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe])) == 0
    }()

    init(sizeKiB: Int) async throws {
        path = try PublishingTests.tempDir()
        let status = try await offPool {
            try Self.command("/bin/mount", ["-t", "tmpfs", "-o", "size=\(sizeKiB)k,mode=0755", "tmpfs", self.path])
        }
        try #require(status == 0, "mount tmpfs on \(path)")
    }

    func remount(readOnly: Bool) async throws {
        let status = try await offPool {
            try Self.command("/bin/mount", ["-o", "remount,\(readOnly ? "ro" : "rw")", self.path])
        }
        try #require(status == 0, "remount \(path)")
    }

    deinit {
        _ = try? Self.command("/bin/umount", ["-l", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    @discardableResult
    static func command(_ executable: String, _ arguments: [String]) throws -> Int32 {
        try Spawn.run(executable, arguments, environment: ProcessInfo.processInfo.environment).status
    }
}
