import Foundation
import Yams

/// Named connections in `~/.config/aasactl/config.yaml` (or `$AASACTL_CONFIG`), written by
/// `aasactl login`. The file holds tokens, so it is created with mode 0600 in a 0700 directory
/// and replaced atomically.
struct Profiles: Codable, Sendable {
    struct Profile: Codable, Sendable, Equatable {
        var server: String
        var token: String
        /// The token's team, remembered so team commands need no `--team`.
        var team: String?
    }

    var current: String?
    var profiles: [String: Profile] = [:]

    static var path: String {
        let env = ProcessInfo.processInfo.environment
        if let explicit = env["AASACTL_CONFIG"], !explicit.isEmpty { return explicit }
        let base =
            env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (env["HOME"] ?? NSHomeDirectory()) + "/.config"
        return base + "/aasactl/config.yaml"
    }

    static func load() throws -> Profiles {
        guard let data = FileManager.default.contents(atPath: path) else { return Profiles() }
        do { return try YAMLDecoder().decode(Profiles.self, from: data) } catch {
            throw CLIFailure("cannot read \(path): \(error)")
        }
    }

    func save() throws {
        let path = Self.path
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let text = try YAMLEncoder().encode(self)
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw CLIFailure("cannot write \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CLIFailure("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
