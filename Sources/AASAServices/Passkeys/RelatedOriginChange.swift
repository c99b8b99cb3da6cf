import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// Adding an origin to a domain's `/.well-known/webauthn`, or taking one away (issue 52). A team
/// that holds a grant with `webcredentials` on the domain adds origins as its own and removes only
/// its own; an admin adds origins of no team and removes any; a manifest names its team as the
/// `owner`, whoever applies it, and is held to that team's grant. The whole list is checked after the
/// change (https, no path, no duplicate, at most five labels), and the file follows at the next
/// publish of the domain, as the other two do.
package struct RelatedOriginChange: DomainChange {
    package enum Kind: Sendable {
        case add(String)
        case remove(String)
    }

    package let host: String
    package let kind: Kind
    package let ifMatch: String?
    /// The team whose origin it is, when not the caller's (a manifest an admin applies for a team).
    package var owner: TeamRecord? = nil

    package init(host: String, kind: Kind, ifMatch: String?, owner: TeamRecord? = nil) {
        self.host = host
        self.kind = kind
        self.ifMatch = ifMatch
        self.owner = owner
    }

    /// The team the origin belongs to: the owner named, else the caller's (nil: an admin's).
    func team(of principal: Principal) -> (id: Int64, name: String)? {
        if let owner { return (owner.id, owner.name) }
        guard !principal.isAdmin, let id = principal.teamID else { return nil }
        return (id, principal.teamName ?? "")
    }

    package var action: String {
        switch kind {
        case .add: "related-origin.add"
        case .remove: "related-origin.remove"
        }
    }

    package struct Locked: Sendable {
        package var domain: DomainRecord
        package var origins: [RelatedOriginRecord]
    }

    /// The list's tag for `If-Match`: it changes whenever an origin is added or removed.
    package static func tag(_ origins: [RelatedOriginRecord]) -> String {
        "\"ro-" + Hex.sha256(Array(origins.map(\.origin).sorted().joined(separator: "\n").utf8)).prefix(16) + "\""
    }

    /// The origin's own shape is checked here, before anything is read (a stale `If-Match` with an
    /// origin of the wrong shape is 422, not 412); the list's checks come in `apply`.
    package func authorize(_ principal: Principal) throws {
        guard principal.canWrite else { throw ServiceError.forbidden("a read token cannot change related origins") }
        switch kind {
        case .add(let text): _ = try Self.canonical(text)
        case .remove(let text) where text.utf8.count > 300:
            throw ServiceError.badRequest("an origin is at most 300 characters", field: "origin", rule: "maxLength")
        case .remove: break
        }
    }

    static func canonical(_ text: String) throws -> String {
        switch RelatedOrigins.canonical(text) {
        case .failure(let problem): throw ServiceError.invalid(field: "/origin", rule: problem.rule, problem.message)
        case .success(let canonical): return canonical
        }
    }

    package func lock(_ session: DBSession, principal: Principal) async throws -> Locked {
        let domain = try await Lookup.domain(host, session: session, forUpdate: true)
        if let team = team(of: principal) {
            guard let grant = try await session.grant(domainID: domain.id, teamID: team.id),
                grant.services.contains(.webcredentials)
            else {
                throw ServiceError.forbidden(
                    "only a team whose grant on \(domain.host) includes webcredentials, or an admin, lists related "
                        + "origins there (team \(team.name)'s does not)")
            }
        }
        return Locked(domain: domain, origins: try await session.relatedOrigins(domainID: domain.id))
    }

    /// A team lists at most `RelatedOrigins.maxPerTeam` origins on a domain (the manifest's own cap),
    /// and a domain at most `RelatedOrigins.maxPerDomain` in all: each add holds the domain's lock and
    /// re-checks the whole list, so an unbounded list made every add slower than the last.
    static func checkCount(adding origin: String, to locked: Locked, team: String?) throws {
        let owned = locked.origins.filter { $0.team == team }.count
        guard owned < RelatedOrigins.maxPerTeam else {
            throw ServiceError.invalid(
                field: "/origin", rule: "maxItems",
                "\(team.map { "team \($0)" } ?? "an admin") lists \(owned) related origins on \(locked.domain.host), "
                    + "the most one owner may: remove one before adding \(origin)")
        }
        guard locked.origins.count < RelatedOrigins.maxPerDomain else {
            throw ServiceError.invalid(
                field: "/origin", rule: "maxItems",
                "\(locked.domain.host) lists \(locked.origins.count) related origins, the most a domain may "
                    + "(browsers use only five labels of them): remove one before adding \(origin)")
        }
    }

    package func checkIfMatch(_ locked: Locked) throws {
        try ETag.check(ifMatch, current: Self.tag(locked.origins))
    }

    package func apply(_ locked: Locked, principal: Principal, session: DBSession) async throws -> Applied<
        [RelatedOriginRecord]
    > {
        let domain = locked.domain
        let before = locked.origins.map(\.origin)
        switch kind {
        case .add(let text):
            let origin = try Self.canonical(text)
            let checked = RelatedOrigins.check(before + [origin])
            if let problem = checked.problems.first(where: { $0.index == before.count }) {
                throw ServiceError.invalid(field: "/origin", rule: problem.rule, problem.message)
            }
            try Self.checkCount(adding: origin, to: locked, team: team(of: principal)?.name)
            try await session.insertRelatedOrigin(domainID: domain.id, origin: origin, teamID: team(of: principal)?.id)
        case .remove(let text):
            let origin = (try? RelatedOrigins.canonical(text).get()) ?? text
            guard let entry = locked.origins.first(where: { $0.origin == origin }) else {
                throw ServiceError.notFound("\(domain.host) lists no related origin \(text)")
            }
            if let team = team(of: principal), entry.team != team.name {
                throw ServiceError.forbidden(
                    "\(origin) was listed by \(entry.team.map { "team \($0)" } ?? "an admin"); a team removes only "
                        + "its own related origins")
            }
            try await session.deleteRelatedOrigin(domainID: domain.id, origin: origin)
        }
        let after = try await session.relatedOrigins(domainID: domain.id)
        return Applied(
            output: after, domains: [domain.id],
            audit: [
                AuditEntry(
                    action: action, entityType: "related-origins", entityID: domain.host,
                    team: team(of: principal)?.name, domain: domain.host,
                    before: .array(before.map { .string($0) }), after: .array(after.map { .string($0.origin) }))
            ])
    }
}
