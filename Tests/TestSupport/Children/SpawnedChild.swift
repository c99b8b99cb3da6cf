import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A long-lived child (aasad under test, a stand-in server) started with posix_spawn through
/// `Spawn.launch`, never Foundation's `Process`: `Process.run()` crashed the suite in memcpy while
/// listing /proc/self/fd (swift-corelibs-foundation#5472), and `StartTests` alone starts aasad two
/// hundred times. Reaped only here, with `waitpid` under a lock, so a status is read once and kept.
package final class SpawnedChild: Sendable {
    package let processIdentifier: pid_t
    /// The wait status once reaped.
    private let status = Mutex<Int32?>(nil)

    /// The read end of its standard output, when started with `readsOutput` (a ready line, say).
    package let output: FileHandle?

    /// Standard output goes to `log` (or /dev/null), or to a pipe read through `output` when
    /// `readsOutput`; standard error to `log` (or /dev/null).
    package init(
        _ path: String, _ args: [String] = [], environment: [String: String], log: URL? = nil,
        readsOutput: Bool = false
    ) throws {
        let devNull = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { close(devNull) }
        var logFD: Int32 = -1
        if let log {
            logFD = open(log.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            guard logFD >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        defer { if logFD >= 0 { close(logFD) } }
        var pipeFDs: [Int32] = [-1, -1]
        if readsOutput {
            guard pipe(&pipeFDs) == 0 else { throw POSIXError(.EMFILE) }
            for fd in pipeFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        let errorFD = logFD >= 0 ? logFD : devNull
        do {
            processIdentifier = try Spawn.launch(
                path, args, environment: environment, stdin: devNull,
                stdout: readsOutput ? pipeFDs[1] : errorFD, stderr: errorFD)
        } catch {
            for fd in pipeFDs where fd >= 0 { close(fd) }
            throw error
        }
        if readsOutput { close(pipeFDs[1]) }
        output = readsOutput ? FileHandle(fileDescriptor: pipeFDs[0], closeOnDealloc: true) : nil
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

    /// SIGTERM, then reaped in the background (SIGKILL after 10 s), so no zombie is left behind.
    package func terminate() {
        signal(SIGTERM)
        DispatchQueue.global().async { [self] in
            for _ in 0..<2000 where isRunning { usleep(5_000) }
            signal(SIGKILL)
            waitUntilExit()
        }
    }

    package func signal(_ number: Int32) {
        if isRunning { kill(processIdentifier, number) }
    }

    /// Blocks until the child has ended: call it off the concurrency pool (`offPool`).
    package func waitUntilExit() {
        while isRunning { usleep(5_000) }
    }
}
