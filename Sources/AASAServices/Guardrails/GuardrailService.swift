import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// The admin-owned guardrails: the organisation's (`host` nil) and each domain's. Everyone signed
/// in reads them; admins replace them. New protected paths that a domain's draft or current
/// revision already opens are refused (409, with the witness URLs) unless forced: a guardrail
/// that is broken the moment it is set would block every later change to that domain. Lowered
/// budgets apply to growth only (a team above one may still shrink), so they are never refused.
package struct GuardrailService: Sendable {
    package let work: RequestWork
    package let principal: Principal
    package let actor: Actor

    package init(work: RequestWork, principal: Principal, actor: Actor) {
        self.work = work
        self.principal = principal
        self.actor = actor
    }

    package struct Input: Sendable {
        package var protectedPaths: [String]
        package var maxRulesPerTeam: Int?
        package var maxBytesPerTeam: Int?

        package init(protectedPaths: [String], maxRulesPerTeam: Int? = nil, maxBytesPerTeam: Int? = nil) {
            self.protectedPaths = protectedPaths
            self.maxRulesPerTeam = maxRulesPerTeam
            self.maxBytesPerTeam = maxBytesPerTeam
        }
    }

    package func get(_ host: String?) async throws -> (host: String?, record: GuardrailRecord) {
        try await work.read { session in
            let domain: DomainRecord? = if let host { try await Lookup.domain(host, session: session) } else { nil }
            return (domain?.host, try await session.guardrails(domainID: domain?.id))
        }
    }

    package func put(_ host: String?, _ input: Input, ifMatch: String?) async throws -> (
        host: String?, record: GuardrailRecord
    ) {
        guard principal.isAdmin else { throw ServiceError.forbidden("guardrails are set by an admin") }
        var errors: [FieldError] = []
        var seen = Set<String>()
        for (i, pattern) in input.protectedPaths.enumerated() {
            if let problem = ProtectedPaths.problem(pattern) {
                errors.append(FieldError(field: "/protectedPaths/\(i)", rule: "pattern", message: problem))
            } else if !seen.insert(pattern).inserted {
                errors.append(
                    FieldError(field: "/protectedPaths/\(i)", rule: "unique", message: "\(pattern) is listed twice"))
            }
        }
        if input.protectedPaths.count > 100 {
            errors.append(
                FieldError(field: "/protectedPaths", rule: "maxItems", message: "at most 100 protected paths"))
        }
        for (field, value) in [
            ("/maxRulesPerTeam", input.maxRulesPerTeam), ("/maxBytesPerTeam", input.maxBytesPerTeam),
        ] {
            if let value, value < 1 {
                errors.append(FieldError(field: field, rule: "minimum", message: "a budget is at least 1"))
            }
        }
        if let rules = input.maxRulesPerTeam, rules > 100_000 {
            errors.append(
                FieldError(field: "/maxRulesPerTeam", rule: "maximum", message: "a rule budget is at most 100000"))
        }
        if let bytes = input.maxBytesPerTeam, bytes > AASAValidator.maxFileSize {
            errors.append(
                FieldError(
                    field: "/maxBytesPerTeam", rule: "maximum",
                    message: "a byte budget is at most the file's limit, \(AASAValidator.maxFileSize)"))
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }
        return try await work.transaction { session in
            let domain: DomainRecord? =
                if let host { try await Lookup.domain(host, session: session, forUpdate: true) } else { nil }
            let before = try await session.guardrails(domainID: domain?.id)
            try ETag.check(ifMatch, version: before.version)
            let saved = try await session.saveGuardrails(
                GuardrailRecord(
                    domainID: domain?.id, protectedPaths: input.protectedPaths, maxRulesPerTeam: input.maxRulesPerTeam,
                    maxBytesPerTeam: input.maxBytesPerTeam))
            let added = input.protectedPaths.filter { !before.protectedPaths.contains($0) }
            if !added.isEmpty {
                let affected: [DomainRecord]
                if let domain {
                    affected = [domain]
                } else {
                    var all: [DomainRecord] = []
                    for listed in try await session.listDomains() {
                        if let locked = try await session.domain(id: listed.id, forUpdate: true) { all.append(locked) }
                    }
                    affected = all
                }
                for domain in affected { try await checkOpenings(domain, session: session) }
            }
            try await session.appendAudit(
                AuditEntry(
                    action: "guardrails.update", entityType: "guardrails", entityID: domain?.host ?? "*",
                    domain: domain?.host,
                    before: before.version == 0 ? nil : AuditJSON.guardrails(before), after: AuditJSON.guardrails(saved)
                ).record(by: actor))
            return (domain?.host, saved)
        }
    }

    /// The domain's draft and current revision under the guardrails now in the transaction.
    private func checkOpenings(_ domain: DomainRecord, session: DBSession) async throws {
        let policies = DomainPolicies([ProtectedPathPolicy()])
        let draft = try await DomainDocument.render(try await session.snapshot(of: domain))
        try await policies.check(
            PolicyCandidate(
                stage: .draft, action: "guardrails.update", domain: domain, document: draft,
                bytes: draft.bytes, actor: actor), session: session)
        if let current = try await session.currentRevision(of: domain) {
            try await policies.check(
                PolicyCandidate(
                    stage: .publish(rollbackOf: nil), action: "guardrails.update", domain: domain,
                    document: nil, bytes: current.bytes, actor: actor), session: session)
        }
    }
}

extension AuditJSON {
    package static func guardrails(_ g: GuardrailRecord) -> JSONValue {
        var o: JSONObject = [
            "protectedPaths": .array(g.protectedPaths.map(JSONValue.string)), "version": .number(String(g.version)),
        ]
        if let rules = g.maxRulesPerTeam { o.append("maxRulesPerTeam", .number(String(rules))) }
        if let bytes = g.maxBytesPerTeam { o.append("maxBytesPerTeam", .number(String(bytes))) }
        return .object(o)
    }
}
