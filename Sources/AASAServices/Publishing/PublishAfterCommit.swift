import AASAKernel
import AASAOutbound
import AASARules
import AASAStore
import Logging

/// The publish a committed change asks for, one way for every writer (a single change's
/// auto-publish, a manifest, an import), with one error rule: what was committed stands, and a
/// publish that fails afterwards is an outcome naming why, never an error that hides the commit
/// (issue 40: an import let the error escape after its transaction committed, and ignored
/// `autoPublish`; a manifest reported each failure; each did it in its own code).
package struct PublishAfterCommit: Sendable {
    package let publisher: Publisher

    package init(publisher: Publisher) { self.publisher = publisher }

    package enum Result: Sendable {
        /// Nothing was asked: no reason given, and the domain does not auto-publish.
        case none
        case published(Publisher.Outcome)
        /// The publish was refused or failed; the change is committed all the same.
        case failed(String)

        package var outcome: Publisher.Outcome? {
            if case .published(let outcome) = self { return outcome }
            return nil
        }

        package var failure: String? {
            if case .failed(let why) = self { return why }
            return nil
        }
    }

    /// With a `reason`, publishes as the caller (`authorize` judges it); without one, publishes
    /// only a domain set to `autoPublish`, with the reason "auto-publish after `action`".
    package func run(
        host: String, reason: String?, after action: String, actor: Actor, logger: Logger,
        authorize: @escaping @Sendable (DBSession, DomainRecord) async throws -> Void = { _, _ in }
    ) async -> Result {
        do {
            if let reason {
                return .published(
                    try await publisher.publish(
                        host: host, reason: reason, source: .draft, actor: actor, logger: logger, authorize: authorize))
            }
            let autoPublish = try await RequestWork(database: publisher.database, logger: logger).read {
                try await $0.domain(host: host)?.autoPublish ?? false
            }
            guard autoPublish else { return .none }
            return .published(
                try await publisher.publish(
                    host: host, reason: "auto-publish after \(action)", source: .draft, actor: actor, logger: logger))
        } catch let refusal as ServiceError {
            logger.warning(
                "publish after commit refused",
                metadata: ["host": .string(host), "after": .string(action), "error": .string(refusal.slug)])
            return .failed(refusal.detail ?? refusal.title)
        } catch {
            logger.error(
                "publish after commit failed",
                metadata: [
                    "host": .string(host), "after": .string(action), "error": .string(String(describing: error)),
                ])
            return .failed("the publish failed after the change was committed; publish again")
        }
    }
}
