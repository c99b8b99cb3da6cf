import AASAStore
import Logging

/// Publishing from outside an HTTP request (benchmarks, tools): the same path as
/// `POST /v1/domains/{host}/publish`, acting as the system.
public enum PublishingService {
    public struct Result: Sendable {
        public var created: Bool
        public var revision: Int
        public var failedTargets: Int
    }

    public static func publishDraft(database: Database, host: String, reason: String, logger: Logger) async throws
        -> Result
    {
        let outcome = try await Publisher(database: database, served: nil, policies: .standard())
            .publish(
                host: host, reason: reason, source: .draft, actor: .system,
                logger: logger)
        return Result(
            created: outcome.created, revision: outcome.revision.number,
            failedTargets: outcome.targets.filter { !$0.ok }.count)
    }
}
