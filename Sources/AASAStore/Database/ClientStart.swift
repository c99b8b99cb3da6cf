import Synchronization

/// Opens once the pool's `run()` has been called: a lease asked for before that makes PostgresNIO
/// warn ("run() hasn't been called yet") and wait. aasad's start-up check, its background
/// services and (in tests) the first requests all start beside the pool's service, so without
/// this each start logged the warning several times for nothing.
public final class ClientStart: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Void, Never>])
        case open
    }

    private let state = Mutex(State.waiting([]))

    public init() {}

    /// Returns at once when open; otherwise when `open()` is called.
    func wait() async {
        let isOpen = state.withLock { if case .open = $0 { true } else { false } }
        if isOpen { return }
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                switch state {
                case .open: return true
                case .waiting(let waiters):
                    state = .waiting(waiters + [continuation])
                    return false
                }
            }
            if resumeNow { continuation.resume() }
        }
    }

    public func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard case .waiting(let waiters) = state else { return [] }
            state = .open
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
