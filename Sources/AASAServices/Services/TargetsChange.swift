import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore

/// `PUT /v1/domains/{host}/targets` (admin): a domain's targets replaced as a whole, through the
/// change pipeline (lock, If-Match, audit). Web roots stay the domain's `webRoots`, checked by
/// the same rules as there; object-store and purge targets are checked by `TargetSpecCheck`
/// against the credential sets this server has. Nothing is written when any target is refused.
package struct TargetsChange: DomainChange {
    package let host: String
    package let specs: [TargetSpec]
    package let credentialSets: Set<String>
    package let webRootBases: [String]
    package let ifMatch: String?

    package init(
        host: String, specs: [TargetSpec], credentialSets: Set<String>, webRootBases: [String], ifMatch: String?
    ) {
        self.host = host
        self.specs = specs
        self.credentialSets = credentialSets
        self.webRootBases = webRootBases
        self.ifMatch = ifMatch
    }

    package var action: String { "domain.targets" }

    package func authorize(_ principal: Principal) throws {
        guard principal.isAdmin else { throw ServiceError.forbidden("this needs an admin token") }
    }

    package func lock(_ session: DBSession, principal: Principal) async throws -> DomainRecord {
        try await Lookup.domain(host, session: session, forUpdate: true)
    }

    package func checkIfMatch(_ locked: DomainRecord) throws { try ETag.check(ifMatch, version: locked.version) }

    package func apply(_ before: DomainRecord, principal: Principal, session: DBSession) async throws -> Applied<
        DomainRecord
    > {
        let (roots, objects) = try TargetSpecCheck.check(specs, credentialSets: credentialSets)
        let webRoots = try roots.map { i, root in
            try DomainSettings.checkedWebRoot(root, field: "/targets/\(i)/path", bases: webRootBases)
        }
        if webRoots != before.webRoots {
            try await DomainSettingsChange.checkWebRoots(webRoots, of: before.id, session: session)
        }
        let beforeObjects = try await session.objectTargets(domainID: before.id)
        let after = try await session.updateDomain(
            id: before.id, aliases: before.aliases, variables: before.substitutionVariables,
            defaults: before.defaults, webRoots: webRoots, autoPublish: before.autoPublish,
            legacyRootPath: before.legacyRootPath)
        try await session.setObjectTargets(domainID: before.id, specs: objects.map(\.json))
        // Each target whole, as stored (issue 49: names alone left a change of credential set,
        // endpoint or cache-control invisible). A spec holds no secret: it names a credential set.
        func listed(_ roots: [String], _ objects: [String]) -> JSONValue {
            .array(
                roots.map { .object(["kind": .string("webRoot"), "path": .string($0)]) }
                    + objects.map { (try? JSONParser.parse(Array($0.utf8)).value) ?? .string($0) })
        }
        return Applied(
            output: after, domains: [],
            audit: [
                AuditEntry(
                    action: action, entityType: "domain", entityID: host, domain: host,
                    before: listed(before.webRoots, beforeObjects), after: listed(webRoots, objects.map(\.json)))
            ])
    }
}

/// A domain's targets in order (web roots first, as they are written first), each with its last outcome.
package struct DomainTargets: Sendable {
    package struct Entry: Sendable {
        package var spec: TargetSpec
        package var last: ObjectOutcome?
    }

    package var domain: DomainRecord
    package var entries: [Entry]

    /// What a principal may see of a domain's targets (issue 49): an admin everything; a team
    /// holding a grant on the domain each target's kind (and a purge's provider) and whether its
    /// last outcome's steps went through, never a bucket, endpoint, URL, path, credential set or
    /// an upstream's error text; anyone else nothing (404, as for a domain it cannot see).
    package static func read(_ host: String, principal: Principal, work: RequestWork) async throws -> DomainTargets {
        let targets = try await read(host, work: work)
        if principal.isAdmin { return targets }
        guard let teamID = principal.teamID,
            try await work.read({ try await $0.grant(domainID: targets.domain.id, teamID: teamID) }) != nil
        else { throw ServiceError.notFound("no targets of \(host) for this token: an admin's, or a granted team's") }
        return DomainTargets(domain: targets.domain, entries: targets.entries.enumerated().map { redacted($1, $0) })
    }

    static func redacted(_ entry: Entry, _ position: Int) -> Entry {
        var spec = TargetSpec(kind: entry.spec.kind)
        spec.provider = entry.spec.provider
        spec.name = "\(entry.spec.kind.rawValue) \(position + 1)"
        let last = entry.last.map { outcome -> ObjectOutcome in
            var shown = ObjectOutcome(target: spec.name ?? "", kind: outcome.kind, ok: outcome.ok)
            shown.revision = outcome.revision
            shown.assetLinksRevision = outcome.assetLinksRevision
            shown.steps = outcome.steps.map { .init(step: $0.step, file: $0.file, key: nil, ok: $0.ok, error: nil) }
            return shown
        }
        return Entry(spec: spec, last: last)
    }

    package static func read(_ host: String, work: RequestWork) async throws -> DomainTargets {
        try await work.read { session in
            let domain = try await Lookup.domain(host, session: session)
            let roots = try await session.webRootOutcomes(domainID: domain.id)
            let outcomes = try await session.objectOutcomes(domainID: domain.id)
            var entries = domain.webRoots.map { root -> Entry in
                var spec = TargetSpec(kind: .webRoot)
                spec.path = root
                spec.name = "webRoot:" + root
                let last = roots[root].map { last -> ObjectOutcome in
                    var outcome = ObjectOutcome(target: root, kind: "webRoot", ok: last.ok)
                    outcome.revision = last.revision
                    outcome.error = last.error
                    outcome.steps = [
                        .init(step: "written", file: PublishedFile.aasa.name, ok: last.ok, error: last.error)
                    ]
                    return outcome
                }
                return Entry(spec: spec, last: last)
            }
            for spec in try await session.objectTargets(domainID: domain.id).compactMap(TargetSpec.decode) {
                entries.append(
                    Entry(spec: spec, last: outcomes[spec.name ?? ""].flatMap { ObjectOutcome.decode($0.outcome) }))
            }
            return DomainTargets(domain: domain, entries: entries)
        }
    }
}
