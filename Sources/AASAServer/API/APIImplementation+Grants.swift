import AASAAPI
import AASAModel
import AASAStore
import Foundation

extension APIImplementation {
    func listGrants(_ input: Operations.ListGrants.Input) async throws -> Operations.ListGrants.Output {
        _ = try principal()
        let grants = try await read { session in
            try await session.listGrants(domainID: try await lookupDomain(input.path.host, session: session).id)
        }
        return .ok(.init(body: .json(.init(items: grants.map(Components.Schemas.Grant.init)))))
    }

    func getGrant(_ input: Operations.GetGrant.Input) async throws -> Operations.GetGrant.Output {
        _ = try principal()
        let grant = try await read { session in
            let domain = try await lookupDomain(input.path.host, session: session)
            guard let team = try await session.team(named: input.path.team),
                  let grant = try await session.grant(domainID: domain.id, teamID: team.id) else {
                throw APIProblem.notFound("team \(input.path.team) has no grant on \(domain.host)")
            }
            return grant
        }
        return .ok(.init(headers: .init(eTag: ETag.of(grant.version)), body: .json(.init(grant))))
    }

    func putGrant(_ input: Operations.PutGrant.Input) async throws -> Operations.PutGrant.Output {
        let principal = try principal()
        try requireAdmin(principal)
        guard case .json(let body) = input.body else { throw APIProblem.badRequest("expected application/json") }
        guard !body.pathPrefixes.isEmpty else {
            throw APIProblem.invalid(field: "/pathPrefixes", rule: "non-empty", "a grant needs at least one path prefix")
        }
        let prefixes = try body.pathPrefixes.enumerated().map { i, prefix in
            do { return try PathGrant.normalized(prefix) }
            catch { throw APIProblem.invalid(field: "/pathPrefixes/\(i)", rule: "path-prefix", "\(prefix): \(error)") }
        }
        guard Set(prefixes).count == prefixes.count else {
            throw APIProblem.invalid(field: "/pathPrefixes", rule: "unique", "a prefix is listed twice")
        }
        let grant = try await write { session in
            let domain = try await lookupDomain(input.path.host, session: session, forUpdate: true)
            guard let team = try await session.team(named: input.path.team) else {
                throw APIProblem.notFound("no team \(input.path.team)")
            }
            let before = try await session.grant(domainID: domain.id, teamID: team.id)
            try ETag.check(input.headers.ifMatch, version: before?.version ?? 0)
            // Narrowing is refused while the team has rules outside the new prefixes.
            for set in try await session.listRuleSets(domainID: domain.id) where set.teamName == team.name {
                if let index = Self.firstRuleOutside(set.rules, prefixes: prefixes, defaults: domain.defaults) {
                    throw APIProblem.invalid(field: "/pathPrefixes", rule: "grant-in-use",
                        "rule \(set.rules[index].id.uuidString.lowercased()) of \(set.appID) lies outside these prefixes; change the rule first")
                }
            }
            let grant = try await session.upsertGrant(domainID: domain.id, teamID: team.id, pathPrefixes: prefixes)
            _ = try await DomainGate.check(session, domain: domain)
            try await audit(session, principal, action: before == nil ? "grant.create" : "grant.update", entityType: "grant",
                            entityID: "\(domain.host)/\(team.name)", team: team.name, domain: domain.host,
                            before: before.map(AuditJSON.grant), after: AuditJSON.grant(grant))
            return grant
        }
        return .ok(.init(headers: .init(eTag: ETag.of(grant.version)), body: .json(.init(grant))))
    }

    func deleteGrant(_ input: Operations.DeleteGrant.Input) async throws -> Operations.DeleteGrant.Output {
        let principal = try principal()
        try requireAdmin(principal)
        try await write { session in
            let domain = try await lookupDomain(input.path.host, session: session, forUpdate: true)
            guard let team = try await session.team(named: input.path.team),
                  let grant = try await session.grant(domainID: domain.id, teamID: team.id) else {
                throw APIProblem.notFound("team \(input.path.team) has no grant on \(domain.host)")
            }
            try ETag.check(input.headers.ifMatch, version: grant.version)
            let sets = try await session.listRuleSets(domainID: domain.id).filter { $0.teamName == team.name && !$0.rules.isEmpty }
            guard sets.isEmpty else {
                throw APIProblem.conflict("team \(team.name) still has rules on \(domain.host) (\(sets.map(\.appID).joined(separator: ", "))); remove them first",
                                          field: "team", rule: "in-use")
            }
            try await session.deleteGrant(domainID: domain.id, teamID: team.id)
            _ = try await DomainGate.check(session, domain: domain)
            try await audit(session, principal, action: "grant.delete", entityType: "grant",
                            entityID: "\(domain.host)/\(team.name)", team: team.name, domain: domain.host,
                            before: AuditJSON.grant(grant))
        }
        return .noContent(.init())
    }

    /// The index of the first rule whose path space is not inside `prefixes`.
    static func firstRuleOutside(_ rules: [StoredRule], prefixes: [String], defaults: DomainDefaults) -> Int? {
        rules.firstIndex { rule in
            let c = rule.component.objectValue ?? [:]
            let caseSensitive = c["caseSensitive"]?.boolValue ?? defaults.caseSensitive ?? true
            return !PathGrant.covers(prefixes, pathPattern: c["/"]?.stringValue, caseSensitive: caseSensitive)
        }
    }
}
