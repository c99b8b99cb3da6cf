import AASAKernel
import Synchronization

/// A clock that stands still until the test moves it: a backoff's wait is passed by `advance`, not
/// slept through, so the test neither waits nor races a loaded machine.
final class ManualClock: Sendable {
    private let start = ContinuousClock.now
    private let offset = Mutex<Duration>(.zero)

    func advance(by duration: Duration) { offset.withLock { $0 += duration } }

    var clock: ServiceClock {
        ServiceClock { [self] in start + offset.withLock { $0 } }
    }
}
