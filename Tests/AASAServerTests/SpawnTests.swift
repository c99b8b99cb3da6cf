import AASATestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The test helper that starts children: a child holds only its three standard descriptors, so a
/// file another test is writing never stays open in a long-lived aasactl (the CI run where the
/// downloaded aasactl could not be run: ETXTBSY).
@Suite struct SpawnTests {
    @Test func aChildInheritsNoDescriptorButItsStandardThree() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)").path
        let leaky = open(path, O_WRONLY | O_CREAT, 0o600)  // deliberately without O_CLOEXEC
        try #require(leaky >= 0)
        defer {
            close(leaky)
            unlink(path)
        }
        let script = "for fd in 0 1 2 \(leaky); do [ -e /proc/$$/fd/$fd ] && echo $fd; done; true"
        let run = try Spawn.run("/bin/sh", ["-c", script], environment: [:])
        #expect(run.status == 0)
        #expect(String(decoding: run.out, as: UTF8.self) == "0\n1\n2\n")
    }
}

/// The report `ServerProcess` prints for an aasad that starts but never listens: every thread of
/// the process with its state and wait channel (gdb's backtraces are left out here: slow).
@Suite struct StuckProcessReportTests {
    @Test func aStuckProcessIsReportedThreadByThread() throws {
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["30"]
        try sleeper.launchSerialized()
        defer {
            // SIGKILL: the suite's process blocks SIGTERM (its in-process servers' signal handling),
            // and a child launched by Foundation inherits that mask.
            kill(sleeper.processIdentifier, SIGKILL)
            sleeper.waitUntilExit()
        }
        let report = ServerProcess.threads(of: sleeper.processIdentifier, backtraces: false)
        #expect(report.contains("thread \(sleeper.processIdentifier) sleep State:"), "\(report)")
    }
}
