import AASAKernel
import AASAStore

/// The one "validate, then run the policies" of every writer (issue 40: the change pipeline, a
/// manifest, an import, a publish and a promotion each assembled it by hand, and only some honoured
/// `skipValidation`): the domain's document as the transaction now sees it, through the gate (422
/// when invalid), then every domain policy on it at a stage. A writer that must do something between
/// the two (a manifest syncs its golden URLs) asks them apart; the rest ask `judge`.
package struct Judge: Sendable {
    package let policies: DomainPolicies
    /// Benchmarks only: see `AppConfig.skipValidationForBenchmark`.
    package let skipValidation: Bool

    package init(policies: DomainPolicies, skipValidation: Bool = false) {
        self.policies = policies
        self.skipValidation = skipValidation
    }

    /// The gate: the document rendered and validated, or refused (`DomainGate`).
    package func document(
        _ session: DBSession, domain: DomainRecord, field: (Finding) -> String? = { _ in nil }
    ) async throws -> DomainDocument {
        if skipValidation { return DomainDocument.unvalidated(try await session.snapshot(of: domain)) }
        return try await DomainGate.check(session, domain: domain, field: field)
    }

    /// Every domain policy on a document about to become the draft or the current revision.
    package func policies(
        _ document: DomainDocument, stage: PolicyCandidate.Stage, action: String, domain: DomainRecord, actor: Actor,
        session: DBSession
    ) async throws {
        try await policies.check(
            PolicyCandidate(
                stage: stage, action: action, domain: domain, document: document, bytes: document.bytes, actor: actor),
            session: session)
    }

    /// Both, in order: the document, then the policies on it.
    package func judge(
        _ session: DBSession, domain: DomainRecord, stage: PolicyCandidate.Stage, action: String, actor: Actor,
        field: (Finding) -> String? = { _ in nil }
    ) async throws -> DomainDocument {
        let document = try await document(session, domain: domain, field: field)
        try await policies(document, stage: stage, action: action, domain: domain, actor: actor, session: session)
        return document
    }
}
