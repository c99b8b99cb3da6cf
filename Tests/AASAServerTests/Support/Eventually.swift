import AASAKernel
import AASAOutbound
import AASARules
import AASAServices

/// Polls `condition` every `interval` until it holds or `timeout` has passed; answers whether it
/// held. The one polling loop of the tests: a test waits for what it needs, never for a guessed delay.
func eventually(
    timeout: Duration = .seconds(5), every interval: Duration = .milliseconds(50),
    _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: interval)
    }
}
