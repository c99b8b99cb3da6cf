import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A short-lived child (aasactl, curl) run to completion with posix_spawn, not Foundation's
/// `Process`: on Linux, `Process.run()` over-reads a `dirent` while listing /proc/self/fd
/// (swift-corelibs-foundation#5472, after Swift 6.3.1) and crashed this suite now and then. The
/// children launched by the hundred go through here; the few long-lived ones keep `Process`.
package enum Spawn {
    package struct Result: Sendable {
        package var status: Int32
        package var out: Data
        package var err: Data
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
    /// module does not import; nil on an older C library, where children inherit as before.
    private static let closeFrom: CloseFrom? =
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np").map {
            unsafeBitCast($0, to: CloseFrom.self)
        }
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// Runs `path args…` with `environment`, writes `stdin` to it, and collects standard output
    /// (a pipe) and standard error (a file, so a full pipe can never stall the child).
    package static func run(_ path: String, _ args: [String], environment: [String: String], stdin: Data = Data())
        throws
        -> Result
    {
        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        guard pipe(&input) == 0, pipe(&output) == 0 else { throw POSIXError(.EMFILE) }
        // Close-on-exec, so other children never hold these (the dup2 targets stay open in this one).
        for fd in input + output { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let errorPath = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-err-\(UUID().uuidString)")
            .path
        let errorFD = open(errorPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard errorFD >= 0 else { throw POSIXError(.EIO) }
        defer { unlink(errorPath) }
        let pid: pid_t
        do {
            pid = try launch(path, args, environment: environment, stdin: input[0], stdout: output[1], stderr: errorFD)
        } catch {
            for fd in input + output + [errorFD] { close(fd) }
            throw error
        }
        close(input[0])
        close(output[1])
        close(errorFD)
        defer { ChildReaper.untrack(pid) }
        // Small inputs (a token, a manifest): written whole before the output is read.
        stdin.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = write(input[1], buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                offset += n
            }
        }
        close(input[1])
        var out = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(output[0], &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        close(output[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return Result(
            status: exitCode(status), out: out, err: FileManager.default.contents(atPath: errorPath) ?? Data())
    }

    /// Starts `path args…` with `environment` and the three descriptors as its standard input,
    /// output and error; the caller closes its copies. Tracked by `ChildReaper` until reaped.
    package static func launch(
        _ path: String, _ args: [String], environment: [String: String], stdin: Int32, stdout: Int32, stderr: Int32
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        // Nothing else this process has open reaches the child: a descriptor another thread opened
        // without close-on-exec (Foundation's `Data.write`) would otherwise live as long as the
        // child, and a file being written when an aasactl starts could not be run (ETXTBSY) until
        // that aasactl ends.
        if let closeFrom = closeFrom { _ = closeFrom(&actions, 3) }
        // The child starts with no blocked signal and the default handlers (a test thread's mask
        // and the server's ignored signals are not its business).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + args).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        ChildReaper.track(pid)
        return pid
    }

    /// A shell's way of saying how a child ended: its exit code, or 128 + the signal that killed it.
    package static func exitCode(_ status: Int32) -> Int32 {
        (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }
}
