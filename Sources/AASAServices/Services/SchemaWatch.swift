import AASAStore
import Logging
import Synchronization

/// What this replica has said about the schema it runs on, so that readiness (asked every few
/// seconds by every probe and scrape) logs a newer release's migration once, by name, when it first
/// appears, not on every check.
package final class SchemaWatch: Sendable {
    private let told = Mutex<Set<String>>([])

    package init() {}

    /// Logs each newer compatible migration and each refusal the first time this replica sees it.
    package func note(_ status: Migrator.Status, _ logger: Logger) {
        for newer in status.newerCompatible where first("newer \(newer)") {
            logger.notice(
                "the database has a newer release's migration, compatible with this one: still serving",
                metadata: ["migration": .string(newer.description)])
        }
        for problem in status.problems where first("problem \(problem)") {
            logger.error("this build cannot run on the database", metadata: ["reason": .string(problem.description)])
        }
    }

    private func first(_ key: String) -> Bool {
        told.withLock { $0.insert(key).inserted }
    }
}
