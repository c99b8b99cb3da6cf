import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// The organisation's trusted OIDC issuers and each team's trust rules (issue 39): admin work,
/// each write in one transaction with its audit event and `If-Match` on the version.
package struct OIDCTrustService: Sendable {
    package let work: RequestWork
    package let principal: Principal
    package let actor: Actor

    package init(work: RequestWork, principal: Principal, actor: Actor) {
        self.work = work
        self.principal = principal
        self.actor = actor
    }

    /// 1 to 32 lower-case letters, digits and hyphens (as environment names).
    package static func checkIssuer(name: String, issuer: String, audience: String) throws {
        var errors: [FieldError] = []
        if !BuildsInput.isName(name) {
            errors.append(
                FieldError(field: "name", rule: "name", message: "1 to 32 lower-case letters, digits and hyphens"))
        }
        let url = URLComponents(string: issuer)
        if issuer.utf8.count > 255 || url?.scheme != "https" || (url?.host ?? "").isEmpty || url?.query != nil
            || url?.fragment != nil
        {
            errors.append(
                FieldError(
                    field: "/issuer", rule: "https-url",
                    message: "the issuer is an https URL with no query or fragment, as tokens' iss names it"))
        }
        if audience.isEmpty || audience.utf8.count > 255 {
            errors.append(FieldError(field: "/audience", rule: "length", message: "1 to 255 characters"))
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }
    }

    package func issuers() async throws -> [OIDCIssuerRecord] {
        try requireAdmin()
        return try await work.read { try await $0.oidcIssuers() }
    }

    package func putIssuer(name: String, issuer: String, audience: String, ifMatch: String?) async throws
        -> OIDCIssuerRecord
    {
        try requireAdmin()
        try Self.checkIssuer(name: name, issuer: issuer, audience: audience)
        return try await work.transaction { session in
            let before = try await session.oidcIssuer(named: name, forUpdate: true)
            if let before {
                try ETag.check(ifMatch, version: before.version)
            } else if ifMatch != nil {
                throw ServiceError.preconditionFailed(current: "none")
            }
            let after: OIDCIssuerRecord
            do {
                after = try await session.putOIDCIssuer(name: name, issuer: issuer, audience: audience)
            } catch StoreError.duplicate {
                throw ServiceError.conflict(
                    "another issuer has the URL \(issuer)", field: "/issuer", rule: "unique")
            }
            try await session.appendAudit(
                AuditEntry(
                    action: before == nil ? "oidc.issuer.create" : "oidc.issuer.update", entityType: "oidc-issuer",
                    entityID: name, before: before.map(Self.audit), after: Self.audit(after)
                ).record(by: actor))
            return after
        }
    }

    package func deleteIssuer(name: String, ifMatch: String?) async throws {
        try requireAdmin()
        try await work.transaction { session in
            guard let before = try await session.oidcIssuer(named: name, forUpdate: true) else {
                throw ServiceError.notFound("no issuer \(name)")
            }
            try ETag.check(ifMatch, version: before.version)
            let teams = try await session.teamsTrusting(issuer: name)
            guard teams.isEmpty else {
                throw ServiceError.conflict(
                    "the trust rules of \(teams.joined(separator: ", ")) name \(name); change them first",
                    field: "name", rule: "in-use")
            }
            try await session.deleteOIDCIssuer(name: name)
            try await session.appendAudit(
                AuditEntry(
                    action: "oidc.issuer.delete", entityType: "oidc-issuer", entityID: name, before: Self.audit(before)
                ).record(by: actor))
        }
    }

    package func trust(team name: String) async throws -> TeamTrustRecord {
        try await work.read { session in
            let team = try await Lookup.visibleTeam(name, principal, session: session)
            return try await session.teamTrust(team)
        }
    }

    package func setTrust(team name: String, rules items: [TrustRuleInput.Item], ifMatch: String?) async throws
        -> TeamTrustRecord
    {
        try await work.transaction { session in
            // Another team's token learns nothing of the team (404), its own read or write token
            // that only an admin sets trust (403), then the rules' shape (422), then If-Match.
            let team = try await Lookup.visibleTeam(name, principal, session: session, forUpdate: true)
            try requireAdmin()
            let rules = try TrustRuleInput.check(items)
            let before = try await session.teamTrust(team)
            try ETag.check(ifMatch, version: before.version)
            let known = Set(try await session.oidcIssuers().map(\.name))
            let unknown = rules.enumerated().filter { !known.contains($0.element.issuer) }.map {
                FieldError(
                    field: "/rules/\($0.offset)/issuer", rule: "exists",
                    message: "there is no trusted issuer \($0.element.issuer) (PUT /v1/oidc/issuers/{name} first)")
            }
            guard unknown.isEmpty else { throw ServiceError.invalid(unknown) }
            let after = try await session.setTeamTrust(team, rules: rules)
            try await session.appendAudit(
                AuditEntry(
                    action: "team.trust", entityType: "team", entityID: team.name, team: team.name,
                    before: Self.audit(before.rules), after: Self.audit(after.rules)
                ).record(by: actor))
            return after
        }
    }

    private func requireAdmin() throws {
        guard principal.isAdmin else { throw ServiceError.forbidden("this needs an admin token") }
    }

    static func audit(_ issuer: OIDCIssuerRecord) -> JSONValue {
        .object([
            "name": .string(issuer.name), "issuer": .string(issuer.issuer), "audience": .string(issuer.audience),
            "version": .number(String(issuer.version)),
        ])
    }

    static func audit(_ rules: [TrustRule]) -> JSONValue {
        .array(
            rules.map { rule in
                let claims = rule.claims.sorted { $0.key < $1.key }.map { JSONMember($0.key, .string($0.value)) }
                return .object([
                    "issuer": .string(rule.issuer), "claims": .object(JSONObject(claims)),
                    "scopes": .array(rule.scopes.map { .string($0.rawValue) }),
                ])
            })
    }
}
