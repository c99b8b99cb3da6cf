import Synchronization

/// The deadline `answerWithin` gave up at.
package struct AnswerDeadlinePassed: Error, CustomStringConvertible {
    package let deadline: Duration
    package var description: String { "no answer within \(deadline)" }
}

/// Runs `operation` and answers within `deadline`, whether or not it has finished: the answer is
/// its result, or `AnswerDeadlinePassed`. A task group cannot promise that, since leaving it waits
/// for every child, and a statement on a silent connection does not hear cancellation until its own
/// deadline (15 s): readiness and /metrics, meant to answer in 2 s, waited for it, so a probe counted
/// as failed and a scrape as down. Past the deadline the operation is cancelled and left to end on
/// its own, within the statement deadline that bounds it.
package func answerWithin<T: Sendable>(
    _ deadline: Duration, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let pending = Pending(continuation)
        let work = Task {
            let result: Result<T, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            pending.take()?.resume(with: result)
        }
        Task {
            try? await Task.sleep(for: deadline)
            guard let waiting = pending.take() else { return }
            work.cancel()
            waiting.resume(throwing: AnswerDeadlinePassed(deadline: deadline))
        }
    }
}

/// The waiting caller, taken once: by the operation's answer or by the deadline, whichever is first.
private final class Pending<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, any Error>?>

    init(_ continuation: CheckedContinuation<T, any Error>) {
        self.continuation = Mutex(continuation)
    }

    func take() -> CheckedContinuation<T, any Error>? {
        continuation.withLock { $0.take() }
    }
}
