import AASAStore

/// An organisation's rule about what a domain may serve, checked on every path that changes a
/// domain (every `DomainChange`, manifest apply, publish and rollback) after AASAModel's own
/// validation and before commit. Golden URLs and guardrails plug in here.
protocol DomainPolicy: Sendable {
    /// Throws an `APIProblem` to refuse the change; nothing is then written.
    func check(_ candidate: PolicyCandidate, session: DBSession) async throws
}

/// What a policy judges: the domain's document as the change would leave it, and what it was.
struct PolicyCandidate: Sendable {
    enum Stage: Sendable {
        /// A change to the draft (rules, order, settings, grants, apps, manifest).
        case draft
        /// Bytes about to become the current revision (publish, rollback).
        case publish(rollbackOf: Int?)
    }

    var stage: Stage
    var action: String
    var domain: DomainRecord
    /// The rendered document after the change (for a draft change) or the bytes to publish.
    var document: DomainDocument?
    var bytes: [UInt8]
    var actor: Actor
}

/// The organisation's policies, run in order; the first that refuses wins.
struct DomainPolicies: Sendable {
    let all: [any DomainPolicy]

    init(_ all: [any DomainPolicy] = []) { self.all = all }

    func check(_ candidate: PolicyCandidate, session: DBSession) async throws {
        for policy in all { try await policy.check(candidate, session: session) }
    }
}
