import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// Golden URLs on one domain: a team registers, changes and removes its own (an admin any team's),
/// everyone signed in reads them all. Each write locks the domain row, so it is ordered with the
/// changes that the expectations guard, and is audited in its transaction.
package struct ExpectationService: Sendable {
    package let work: RequestWork
    package let principal: Principal
    package let actor: Actor

    package init(work: RequestWork, principal: Principal, actor: Actor) {
        self.work = work
        self.principal = principal
        self.actor = actor
    }

    package func list(_ host: String) async throws -> (host: String, items: [ExpectationRecord]) {
        try await work.read { session in
            let domain = try await Lookup.domain(host, session: session)
            let records = try await session.listExpectations(domainID: domain.id)
            return (domain.host, try await ExpectationScope.marked(records, domainID: domain.id, session: session))
        }
    }

    package func get(_ host: String, id: String) async throws -> ExpectationRecord {
        try await work.read { session in
            let domain = try await Lookup.domain(host, session: session)
            let record = try await Self.find(id, domain: domain, session: session)
            return try await ExpectationScope.marked([record], domainID: domain.id, session: session)[0]
        }
    }

    /// Registers an expectation for `team` (the caller's own; an admin names any, or the team of
    /// the app an `opens` names). 422 when it does not hold in the draft today.
    package func create(_ host: String, _ input: ExpectationInput, team teamName: String?) async throws
        -> ExpectationRecord
    {
        guard principal.canWrite else { throw ServiceError.forbidden("a read token cannot register expectations") }
        try input.checkBounds()
        if let teamName, teamName.utf8.count > 63 {
            throw ServiceError.invalid(field: "/team", rule: "maxLength", "a team name is at most 63 characters")
        }
        return try await work.transaction { session in
            let domain = try await Lookup.domain(host, session: session, forUpdate: true)
            let team = try await owner(teamName, input: input, session: session)
            let record = try await Self.store(
                input, id: UUID(), previous: nil, domain: domain, team: team, pointer: "",
                adminPinned: principal.isAdmin, evaluation: try await Evaluation(domain, session: session),
                session: session)
            try await session.appendAudit(
                Self.audit("expectation.create", domain: domain, before: nil, after: record).record(by: actor))
            return record
        }
    }

    package func replace(_ host: String, id: String, _ input: ExpectationInput, ifMatch: String?) async throws
        -> ExpectationRecord
    {
        guard principal.canWrite else { throw ServiceError.forbidden("a read token cannot change expectations") }
        try input.checkBounds()
        return try await work.transaction { session in
            let domain = try await Lookup.domain(host, session: session, forUpdate: true)
            let current = try await owned(id, domain: domain, session: session)
            try ETag.check(ifMatch, version: current.version)
            let team = TeamRef(id: current.teamID, name: current.teamName)
            let record = try await Self.store(
                input, id: current.id, previous: current, domain: domain, team: team, pointer: "",
                adminPinned: principal.isAdmin, evaluation: try await Evaluation(domain, session: session),
                session: session)
            try await session.appendAudit(
                Self.audit("expectation.update", domain: domain, before: current, after: record).record(by: actor))
            return record
        }
    }

    package func delete(_ host: String, id: String, ifMatch: String?) async throws {
        guard principal.canWrite else { throw ServiceError.forbidden("a read token cannot delete expectations") }
        try await work.transaction { session in
            let domain = try await Lookup.domain(host, session: session, forUpdate: true)
            let current = try await owned(id, domain: domain, session: session)
            try ETag.check(ifMatch, version: current.version)
            try await session.deleteExpectation(id: current.id)
            try await session.appendAudit(
                Self.audit("expectation.delete", domain: domain, before: current, after: nil).record(by: actor))
        }
    }

    // MARK: Shared with manifest apply

    package struct TeamRef: Sendable {
        package var id: Int64
        package var name: String
    }

    /// The domain's full draft and its current revisions (both files), compiled: what a new
    /// expectation must hold in.
    package struct Evaluation: Sendable {
        package var draft: LinkAnswer
        package var published: LinkAnswer?

        package init(_ domain: DomainRecord, session: DBSession) async throws {
            let rendered = try await DomainDocument.render(try await session.snapshot(of: domain))
            try await self.init(rendered, domain: domain, session: session)
        }

        /// With the draft already rendered (a manifest's, in its own transaction).
        package init(_ rendered: DomainDocument, domain: DomainRecord, session: DBSession) async throws {
            let apps = rendered.snapshot.appsByIdentity
            draft = LinkAnswer(ios: rendered.matcher, android: rendered.android.matcher, apps: apps)
            let aasa = try await session.currentRevision(of: domain)
            let android = try await session.currentAssetLinksRevision(domainID: domain.id)
            published = aasa.map { revision in
                LinkAnswer(
                    ios: PublishedMatchers.aasaOrEmpty(revision.bytes),
                    android: PublishedMatchers.assetLinks(android?.bytes ?? []), apps: apps)
            }
        }
    }

    /// Checks `input` and stores it under `id` (replacing `previous`), refusing (422) one that
    /// does not hold in the draft: a promise must be true when it is made. What the current
    /// revision answers is recorded; a published expectation must hold from the next publish on.
    package static func store(
        _ input: ExpectationInput, id: UUID, previous: ExpectationRecord?, domain: DomainRecord, team: TeamRef,
        pointer: String, adminPinned: Bool, evaluation: Evaluation, session: DBSession
    ) async throws -> ExpectationRecord {
        var errors = try await input.problems(
            domain: domain, teamID: team.id, teamName: team.name, adminPinned: adminPinned, pointer: pointer,
            session: session)
        var isAndroid = false
        if let appID = input.appID { isAndroid = try await session.app(appID: appID)?.platform == .android }
        let draftOpener = evaluation.draft.opener(url: input.url, appID: input.appID, isAndroid: isAndroid)?.appID
        if errors.isEmpty && !input.kind.holds(opener: draftOpener, appID: input.appID) {
            errors.append(
                FieldError(
                    field: pointer + "/url", rule: "already-broken",
                    message: "the expectation does not hold in \(domain.host)'s draft: "
                        + input.kind.brokenMessage(url: input.url, appID: input.appID, opener: draftOpener)))
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }
        let record = ExpectationRecord(
            id: id, domainID: domain.id, teamID: team.id, teamName: team.name, url: input.url,
            kind: input.kind.rawValue,
            appID: input.appID, source: input.source, description: input.description,
            version: (previous?.version ?? 0) + 1,
            draftApp: draftOpener,
            publishedApp: evaluation.published?.opener(url: input.url, appID: input.appID, isAndroid: isAndroid)?.appID,
            adminPinned: adminPinned)
        do { try await session.saveExpectation(record) } catch StoreError.duplicate {
            throw ServiceError.conflict(
                "team \(team.name) already expects this of \(input.url)", field: pointer + "/url", rule: "unique")
        }
        return try await session.expectation(id: id, domainID: domain.id) ?? record
    }

    package static func audit(
        _ action: String, domain: DomainRecord, before: ExpectationRecord?, after: ExpectationRecord?
    )
        -> AuditEntry
    {
        let any = (after ?? before)!
        return AuditEntry(
            action: action, entityType: "expectation", entityID: any.id.uuidString.lowercased(), team: any.teamName,
            domain: domain.host, appID: any.appID, before: before.map(AuditJSON.expectation),
            after: after.map(AuditJSON.expectation))
    }

    // MARK: Lookups

    package static func find(_ id: String, domain: DomainRecord, session: DBSession, forUpdate: Bool = false)
        async throws
        -> ExpectationRecord
    {
        guard let uuid = UUIDText.parse(id),
            let found = try await session.expectation(id: uuid, domainID: domain.id, forUpdate: forUpdate)
        else {
            throw ServiceError.notFound("no expectation \(id) on \(domain.host)")
        }
        return found
    }

    /// The expectation, if the caller may change it: its team's write tokens, and admins.
    private func owned(_ id: String, domain: DomainRecord, session: DBSession) async throws -> ExpectationRecord {
        let found = try await Self.find(id, domain: domain, session: session, forUpdate: true)
        guard principal.isAdmin || principal.isMember(of: found.teamID) else {
            throw ServiceError.forbidden(
                "the expectation belongs to team \(found.teamName); a team changes only its own")
        }
        return found
    }

    /// Whose expectation a new one is: a team token's own team; for an admin the team named, or
    /// the team of the app an `opens` names.
    private func owner(_ name: String?, input: ExpectationInput, session: DBSession) async throws -> TeamRef {
        if !principal.isAdmin {
            guard let id = principal.teamID, let team = principal.teamName else {
                throw ServiceError.forbidden("this token belongs to no team")
            }
            if let name, name != team { throw ServiceError.forbidden("a team registers expectations only for itself") }
            return TeamRef(id: id, name: team)
        }
        if let name {
            guard let team = try await session.team(named: name) else {
                throw ServiceError.invalid(field: "/team", rule: "exists", "no team \(name)")
            }
            return TeamRef(id: team.id, name: team.name)
        }
        if input.kind == .opens, let appID = input.appID, let app = try await session.app(appID: appID) {
            return TeamRef(id: app.teamID, name: app.teamName)
        }
        throw ServiceError.invalid(
            field: "/team", rule: "required", "an admin names the team whose expectation this is")
    }
}

extension AuditJSON {
    package static func expectation(_ e: ExpectationRecord) -> JSONValue {
        var o: JSONObject = [
            "id": .string(e.id.uuidString.lowercased()), "url": .string(e.url), "kind": .string(e.kind),
            "source": .string(e.source), "team": .string(e.teamName), "version": .number(String(e.version)),
        ]
        if let appID = e.appID { o.append("appID", .string(appID)) }
        if let description = e.description { o.append("description", .string(description)) }
        if e.adminPinned { o.append("adminPinned", .bool(true)) }
        return .object(o)
    }
}
