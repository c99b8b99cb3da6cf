import AASAKernel
import AASAOutbound
import AASARules
import AASAStore
import Logging

/// Publishing from outside an HTTP request (`aasad publish --all`, benchmarks, tools): the same
/// `Publisher` as the server's, with the organisation's policies and the web-root bases, built
/// once. It acts as the system.
public struct PublishingService: Sendable {
    package let publisher: Publisher

    /// - Parameter webRootBases: the directories web roots must lie in, as the server is configured
    ///   (empty: any); a root outside them is reported as a failed target and not written.
    public init(database: Database, webRootBases: [String]) {
        publisher = Publisher(database: database, served: nil, webRootBases: webRootBases)
    }

    /// With the object-store and purge targets' configuration (`aasad publish --all`).
    package init(database: Database, webRootBases: [String], objects: ObjectPublishing) {
        publisher = Publisher(database: database, served: nil, webRootBases: webRootBases, objects: objects)
    }

    public struct Result: Sendable {
        public var created: Bool
        public var revision: Int
        public var failedTargets: Int
    }

    /// The same path as `POST /v1/domains/{host}/publish`.
    public func publishDraft(host: String, reason: String, logger: Logger) async throws -> Result {
        let outcome = try await publisher.publish(
            host: host, reason: reason, source: .draft, actor: .system, logger: logger)
        return Result(
            created: outcome.primary.created, revision: outcome.primary.revision.number,
            failedTargets: outcome.primary.targets.filter { !$0.ok }.count + outcome.objects.filter { !$0.ok }.count)
    }

    public struct Summary: Sendable {
        public var checked: Int
        public var rewritten: [String]
        public var failed: [String]
    }

    /// One reconciliation pass over every web root (`aasad publish --all`).
    public func reconcileAll(logger: Logger) async throws -> Summary {
        let report = try await Reconciler(database: publisher.database, publisher: publisher, logger: logger)
            .reconcileAll()
        return Summary(checked: report.checked, rewritten: report.rewritten, failed: report.failed)
    }
}
