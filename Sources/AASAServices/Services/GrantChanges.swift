import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// Giving a team path prefixes on a domain, changing them, or taking the grant away (admin only).
/// A grant is not narrowed or removed while the team has rules it would leave outside.
package struct GrantChange: DomainChange {
    package enum Kind: Sendable {
        /// Create or replace with these (normalized) prefixes and domain-wide services.
        case put([String], services: [AppService])
        case delete
    }

    package let host: String
    package let team: String
    package let kind: Kind
    package let ifMatch: String?

    package init(host: String, team: String, kind: Kind, ifMatch: String?) {
        self.host = host
        self.team = team
        self.kind = kind
        self.ifMatch = ifMatch
    }
    package var action: String {
        switch kind {
        case .put: "grant.put"
        case .delete: "grant.delete"
        }
    }

    package struct Locked: Sendable {
        package var domain: DomainRecord
        package var team: TeamRecord
        package var grant: GrantRecord?
    }

    package func authorize(_ principal: Principal) throws {
        guard principal.isAdmin else { throw ServiceError.forbidden("this needs an admin token") }
    }

    package func lock(_ session: DBSession, principal: Principal) async throws -> Locked {
        let domain = try await Lookup.domain(host, session: session, forUpdate: true)
        guard let team = try await session.team(named: team) else {
            if case .delete = kind { throw ServiceError.notFound("team \(self.team) has no grant on \(domain.host)") }
            throw ServiceError.notFound("no team \(self.team)")
        }
        let grant = try await session.grant(domainID: domain.id, teamID: team.id)
        if case .delete = kind, grant == nil {
            throw ServiceError.notFound("team \(team.name) has no grant on \(domain.host)")
        }
        return Locked(domain: domain, team: team, grant: grant)
    }

    package func checkIfMatch(_ locked: Locked) throws {
        try ETag.check(ifMatch, version: locked.grant?.version ?? 0)
    }

    package func apply(_ locked: Locked, principal: Principal, session: DBSession) async throws -> Applied<GrantRecord?>
    {
        let (domain, team, before) = (locked.domain, locked.team, locked.grant)
        let sets = try await session.listRuleSets(domainID: domain.id).filter {
            $0.teamName == team.name && !$0.rules.isEmpty
        }
        switch kind {
        case .put(let prefixes, let services):
            for set in sets {
                if let index = GrantCoverage.firstRuleOutside(set.rules, prefixes: prefixes, defaults: domain.defaults)
                {
                    throw ServiceError.invalid(
                        field: "/pathPrefixes", rule: "grant-in-use",
                        """
                        rule \(set.rules[index].id.uuidString.lowercased()) of \(set.appID) lies outside these \
                        prefixes; change the rule first
                        """
                    )
                }
            }
            let grant = try await session.upsertGrant(
                domainID: domain.id, teamID: team.id, pathPrefixes: prefixes, services: services)
            return Applied(
                output: grant, domains: [domain.id],
                audit: [
                    AuditEntry(
                        action: before == nil ? "grant.create" : "grant.update", entityType: "grant",
                        entityID: "\(domain.host)/\(team.name)",
                        team: team.name, domain: domain.host, before: before.map(AuditJSON.grant),
                        after: AuditJSON.grant(grant))
                ])
        case .delete:
            guard sets.isEmpty else {
                throw ServiceError.conflict(
                    """
                    team \(team.name) still has rules on \(domain.host) \
                    (\(sets.map(\.appID).joined(separator: ", "))); remove them first
                    """,
                    field: "team", rule: "in-use")
            }
            try await session.deleteGrant(domainID: domain.id, teamID: team.id)
            return Applied(
                output: nil, domains: [domain.id],
                audit: [
                    AuditEntry(
                        action: "grant.delete", entityType: "grant", entityID: "\(domain.host)/\(team.name)",
                        team: team.name, domain: domain.host, before: before.map(AuditJSON.grant))
                ])
        }
    }
}
