import AASAKernel
import AASAModel
import AASAStore

/// An organisation's rule about what a domain may serve, checked on every path that changes a
/// domain (every `DomainChange`, manifest apply, publish and rollback) after AASAModel's own
/// validation and before commit: golden URLs (`ExpectationPolicy`) and protected paths
/// (`ProtectedPathPolicy`).
package protocol DomainPolicy: Sendable {
    /// Throws an `ServiceError` to refuse the change (`ServiceError.policy`: an admin may force it);
    /// nothing is then written. May record what it found in the change's transaction.
    func check(_ candidate: PolicyCandidate, session: DBSession) async throws
}

/// What a policy judges: the domain's document as the change would leave it, and what it was.
package struct PolicyCandidate: Sendable {
    package enum Stage: Sendable {
        /// A change to the draft (rules, order, settings, grants, apps, manifest).
        case draft
        /// Bytes about to become the current revision (publish, rollback).
        case publish(rollbackOf: Int?)
    }

    package var stage: Stage
    package var action: String
    package var domain: DomainRecord
    /// The rendered document after the change (for a draft change or a publish of the draft);
    /// nil for a rollback, whose old bytes are all there is.
    package var document: DomainDocument?
    package var bytes: [UInt8]
    package var actor: Actor
    /// The assetlinks.json about to become current in an assetlinks.json rollback (its old bytes).
    /// A draft change or a publish has the Android file in `document`; an AASA rollback leaves it
    /// as it is, and has neither.
    package var assetLinks: [UInt8]? = nil

    package init(
        stage: Stage, action: String, domain: DomainRecord, document: DomainDocument?, bytes: [UInt8], actor: Actor,
        assetLinks: [UInt8]? = nil
    ) {
        self.stage = stage
        self.action = action
        self.domain = domain
        self.document = document
        self.bytes = bytes
        self.actor = actor
        self.assetLinks = assetLinks
    }

    package var isPublish: Bool {
        if case .publish = stage { return true }
        return false
    }

    /// The document compiled for matching (the render's, or compiled from the bytes).
    package func matcher() -> AASAMatcher {
        if let document { return document.matcher }
        return PublishedMatchers.aasaOrEmpty(bytes)
    }

    /// The Android file at stake, compiled: the rendered one, or a rollback's old bytes; nil when an
    /// AASA rollback leaves it as it is.
    package func androidMatcher() -> AndroidMatcher? {
        if let document { return document.android.matcher }
        return assetLinks.map(PublishedMatchers.assetLinks)
    }

    /// Names the rule at `location` for an answer: team, app and rule ID when the document was
    /// rendered from stored rules, the app and pointer otherwise.
    package func ruleReference(_ location: RuleLocation) -> JSONValue {
        DomainDocument.ruleReference(location, in: document)
    }
}

/// The organisation's policies, run in order; the first that refuses wins, unless the actor
/// carries an admin override: then each refusal is recorded (`policy.override`) and passed.
package struct DomainPolicies: Sendable {
    package let all: [any DomainPolicy]

    package init(_ all: [any DomainPolicy] = []) { self.all = all }

    /// Golden URLs, protected paths and environment isolation, the policies every server runs (one set per server: the
    /// expectation cache is its database's).
    package static func standard() -> DomainPolicies {
        DomainPolicies([
            ExpectationPolicy(cache: ExpectationCache()), ProtectedPathPolicy(), EnvironmentIsolationPolicy(),
        ])
    }

    package func check(_ candidate: PolicyCandidate, session: DBSession) async throws {
        for policy in all {
            do {
                try await policy.check(candidate, session: session)
            } catch let problem as ServiceError where problem.overridable {
                guard let override = candidate.actor.override else { throw problem }
                try await session.appendAudit(
                    AuditEntry(
                        action: "policy.override", entityType: "domain", entityID: candidate.domain.host,
                        domain: candidate.domain.host,
                        before: nil,
                        after: .object([
                            "reason": .string(override.reason), "change": .string(candidate.action),
                            "refusal": .string(problem.slug), "violations": .array(problem.violations),
                        ])
                    ).record(by: candidate.actor))
            }
        }
    }
}
