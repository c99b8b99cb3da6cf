import AASAKernel
import AASAOutbound
import AASARules
import AASAStore
import Logging

/// The one way a domain's document changes. For every `DomainChange`, in order:
///
/// 1. authorize (the caller may make such a change at all);
/// 2. lock what the change touches (and see that the caller may see it);
/// 3. check `If-Match`;
/// 4. apply the writes;
/// 5. render and validate every touched domain (AASAModel: 422 on an error, nothing written);
/// 6. run the domain policies (`DomainPolicy`);
/// 7. append the audit events;
/// 8. commit;
/// 9. after commit: stop serving removed hosts, auto-publish domains that ask for it.
///
/// A manifest apply and an import run steps 5–7 through `validate` and `checkPolicies` from their
/// own transactions; publish and rollback judge their bytes with the same `DomainPolicies` (see
/// `Publisher`). So every path that changes a domain passes the same gate.
package struct DomainChangePipeline: Sendable {
    package let database: Database
    package let publisher: Publisher
    package let served: WellKnownFiles
    /// The organisation's domain policies: the publisher's, so a change and a publish are judged alike.
    package var policies: DomainPolicies { publisher.policies }
    /// Benchmarks only: see `AppConfig.skipValidationForBenchmark`.
    package var skipValidation = false
    /// Steps 5 and 6, as every writer asks them.
    package var judge: Judge { Judge(policies: policies, skipValidation: skipValidation) }

    package init(database: Database, publisher: Publisher, served: WellKnownFiles, skipValidation: Bool = false) {
        self.database = database
        self.publisher = publisher
        self.served = served
        self.skipValidation = skipValidation
    }

    package func run<Change: DomainChange>(
        _ change: Change, principal: Principal, actor: Actor,
        logger: Logger
    ) async throws -> Changed<Change.Output> {
        try change.authorize(principal)
        let (applied, documents, autoPublish) = try await RequestWork(database: database, logger: logger).transaction {
            session in
            let locked = try await change.lock(session, principal: principal)
            try change.checkIfMatch(locked)
            let applied = try await change.apply(locked, principal: principal, session: session)
            var documents: [DomainDocument] = []
            var autoPublish: [String] = []
            for id in Set(applied.domains).sorted() {
                guard let domain = try await session.domain(id: id, forUpdate: true) else { continue }
                var document = try await judge.judge(
                    session, domain: domain, stage: .draft, action: change.action, actor: actor
                ) { change.field(for: $0, output: applied.output) }
                document.agreementScope = applied.agreementTeams
                documents.append(document)
                if domain.autoPublish { autoPublish.append(domain.host) }
            }
            try await applied.appendAudit(by: actor, session: session)
            // A key added or rotated, an origin or a client marked: told by the change that made it.
            try await PasskeyOrigins.announceChanges(session, actor: actor)
            // Delivered on commit: every replica drops these hosts, or reloads what they serve.
            for host in applied.removedHosts + applied.refreshedHosts { try await session.notifyRevision(host: host) }
            return (applied, documents, autoPublish)
        }
        for host in applied.removedHosts { served.remove(host: host) }
        // This replica at once (the others on the notification): an alias moves with its answer.
        for host in applied.refreshedHosts {
            do {
                try await RequestWork(database: database, logger: logger).read {
                    try await served.refresh(host: host, session: $0)
                }
            } catch {
                logger.warning(
                    "could not refresh the served copy; the notification or the next reload will",
                    metadata: ["host": .string(host), "error": .string(String(describing: error))])
            }
        }
        for host in autoPublish { await self.autoPublish(host, after: change.action, actor: actor, logger: logger) }
        return Changed(output: applied.output, documents: documents)
    }

    /// Step 5: the domain's document as the transaction now sees it, refused (422) if AASAModel
    /// finds an error. `field` names the request-body field a finding came from, if any.
    package func validate(
        _ session: DBSession, domain: DomainRecord,
        field: (Finding) -> String? = { _ in nil }
    ) async throws -> DomainDocument {
        try await judge.document(session, domain: domain, field: field)
    }

    /// Step 6: every domain policy, in the change's transaction.
    package func checkPolicies(
        _ document: DomainDocument, action: String, domain: DomainRecord, actor: Actor, session: DBSession
    ) async throws {
        try await judge.policies(
            document, stage: .draft, action: action, domain: domain, actor: actor, session: session)
    }

    /// Step 9 for a domain with `autoPublish`, through the one publish after a commit: a failure is
    /// logged and left to the next publish or to reconciliation; the change itself stands.
    package func autoPublish(_ host: String, after action: String, actor: Actor, logger: Logger) async {
        _ = await PublishAfterCommit(publisher: publisher).run(
            host: host, reason: nil, after: action, actor: actor, logger: logger)
    }
}
