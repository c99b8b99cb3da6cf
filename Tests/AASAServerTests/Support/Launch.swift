import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASATestSupport
import Foundation
import Synchronization

/// Launches go one at a time. Foundation's `Process.run()` on Linux crashed this suite in memmove;
/// the cause turned out to be an over-read of /proc/self/fd (swift-corelibs-foundation#5472), not
/// two launches at once, and the children launched by the hundred now use `Spawn`. Serialising
/// the few left costs nothing; drop it with a toolchain that has the fix.
private let launching = Mutex(())

extension Process {
    /// Also tracked by `ChildReaper`: the child dies with the test process.
    func launchSerialized() throws {
        try launching.withLock { _ in try run() }
        ChildReaper.track(processIdentifier)
    }
}
