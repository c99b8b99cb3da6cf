import Foundation
import Synchronization

/// Foundation's `Process.run()` on Linux is not safe to call from two threads at once: two tests
/// launching children together crashed in its memmove. Every child of these tests is launched
/// through this one lock (the launch only; the children run side by side).
private let launching = Mutex(())

extension Process {
    func launchSerialized() throws {
        try launching.withLock { _ in try run() }
    }
}
