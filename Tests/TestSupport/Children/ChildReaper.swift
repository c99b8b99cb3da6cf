import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The children a test process started die with it, however it ends (issue 49: a test's trap,
/// `Index out of range`, ended the test process and left six aasad processes running). Every child
/// launched through `launchSerialized()` or `Spawn` is tracked; a fatal signal (a Swift trap is
/// SIGILL or SIGTRAP) and a normal exit kill every child still tracked, then the process ends as it
/// would have, with the runtime's crash report. `PR_SET_PDEATHSIG` cannot do this here: it fires
/// when the launching *thread* ends, and the concurrency runtime's threads come and go while a
/// child runs.
package enum ChildReaper {
    private static let capacity = 512
    /// Read by the signal handler without a lock (an aligned 32-bit load); written under `lock`.
    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<Int32> = {
        let slots = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        slots.initialize(repeating: 0, count: capacity)
        return slots
    }()
    private static let lock = NSLock()
    /// The actions this replaced (the Swift runtime's backtracer), put back before the fault
    /// repeats: a crash is still reported as it would have been.
    nonisolated(unsafe) private static let previous: UnsafeMutablePointer<sigaction> = {
        let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
        previous.initialize(repeating: sigaction(), count: 65)
        return previous
    }()
    private static let installed: Void = {
        _ = slots
        _ = previous
        for signal in [SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                ChildReaper.killAll()
                // The previous action back; on return the faulting instruction runs again (a trap,
                // a bad access) or abort(3) goes on, and that action handles it.
                sigaction(number, ChildReaper.previous + Int(number), nil)
            }
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, previous + Int(signal))
        }
        atexit { ChildReaper.killAll() }
    }()

    package static func track(_ pid: pid_t) {
        _ = installed
        lock.lock()
        defer { lock.unlock() }
        // A slot is free when empty or when its process is gone (and reaped).
        for i in 0..<capacity where slots[i] == 0 || (kill(slots[i], 0) != 0 && errno == ESRCH) {
            slots[i] = pid
            return
        }
    }

    package static func untrack(_ pid: pid_t) {
        lock.lock()
        defer { lock.unlock() }
        for i in 0..<capacity where slots[i] == pid { slots[i] = 0 }
    }

    /// Async-signal-safe: loads and kill(2) only.
    private static func killAll() {
        for i in 0..<capacity where slots[i] > 0 { kill(slots[i], SIGKILL) }
    }
}
