import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A long-lived child (aasad under test) started with posix_spawn through `Spawn.launch`, never
/// Foundation's `Process`: `Process.run()` crashed the suite in memcpy while listing /proc/self/fd
/// (swift-corelibs-foundation#5472), and `StartTests` alone starts aasad two hundred times. Its
/// standard output and error go to `log`. Reaped only here, with `waitpid` under a lock, so a
/// status is read once and kept.
package final class SpawnedChild: Sendable {
    package let processIdentifier: pid_t
    /// The wait status once reaped.
    private let status = Mutex<Int32?>(nil)

    package init(_ path: String, _ args: [String] = [], environment: [String: String], log: URL) throws {
        let logFD = open(log.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard logFD >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(logFD) }
        let devNull = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(devNull) }
        processIdentifier = try Spawn.launch(
            path, args, environment: environment, stdin: devNull, stdout: logFD, stderr: logFD)
    }

    /// Reaps the child if it has ended; never blocks.
    private func poll() -> Int32? {
        status.withLock { status in
            if let status { return status }
            var raw: Int32 = 0
            var reaped: pid_t
            repeat { reaped = waitpid(processIdentifier, &raw, WNOHANG) } while reaped < 0 && errno == EINTR
            // ECHILD: reaped by someone else, its status lost; it counts as a failure (exit 255).
            if reaped < 0 && errno == ECHILD { raw = 255 << 8 } else if reaped != processIdentifier { return nil }
            ChildReaper.untrack(processIdentifier)
            status = raw
            return raw
        }
    }

    package var isRunning: Bool { poll() == nil }

    /// The exit code, or 128 + the signal that ended it; -1 while it runs.
    package var terminationStatus: Int32 { poll().map(Spawn.exitCode) ?? -1 }

    package func terminate() { signal(SIGTERM) }

    package func signal(_ number: Int32) {
        if isRunning { kill(processIdentifier, number) }
    }

    /// Blocks until the child has ended: call it off the concurrency pool (`offPool`).
    package func waitUntilExit() {
        while isRunning { usleep(5_000) }
    }
}
