import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation

/// Runs blocking work (curl, a child process) on a Dispatch thread and awaits it. Blocking one of
/// the few threads of the concurrency pool would starve the in-process server a request is going
/// to, and can stall Foundation's process monitor.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}
