import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore

/// A domain created, its settings changed, or the domain deleted (admin only).
package struct DomainSettingsChange: DomainChange {
    package enum Kind: Sendable {
        case create(host: String, settings: DomainSettings)
        /// The settings are made from the body against the locked domain.
        case update(host: String, settings: @Sendable (DomainRecord) throws -> DomainSettings)
        case delete(host: String)
    }

    package let kind: Kind
    package let ifMatch: String?

    package init(kind: Kind, ifMatch: String?) {
        self.kind = kind
        self.ifMatch = ifMatch
    }
    package var action: String {
        switch kind {
        case .create: "domain.create"
        case .update: "domain.update"
        case .delete: "domain.delete"
        }
    }

    package func authorize(_ principal: Principal) throws {
        guard principal.isAdmin else { throw ServiceError.forbidden("this needs an admin token") }
    }

    package func lock(_ session: DBSession, principal: Principal) async throws -> DomainRecord? {
        switch kind {
        case .create: nil
        case .update(let host, _), .delete(let host): try await Lookup.domain(host, session: session, forUpdate: true)
        }
    }

    package func checkIfMatch(_ before: DomainRecord?) throws {
        if let before { try ETag.check(ifMatch, version: before.version) }
    }

    package func apply(_ before: DomainRecord?, principal: Principal, session: DBSession) async throws -> Applied<
        DomainRecord
    > {
        switch kind {
        case .create(let host, let settings):
            try await Self.checkWebRoots(settings.webRoots, of: nil, session: session)
            try await Self.checkEnvironment(settings.environment, creating: true, session: session)
            let domain: DomainRecord
            do {
                domain = try await session.insertDomain(
                    host: host, aliases: settings.aliases, variables: settings.variables,
                    defaults: settings.defaults, webRoots: settings.webRoots,
                    autoPublish: settings.autoPublish, legacyRootPath: settings.legacyRootPath,
                    environment: settings.environment)
            } catch StoreError.duplicate {
                throw ServiceError.conflict(
                    "\(host) or one of its aliases already belongs to a domain", field: "/host", rule: "unique")
            }
            return Applied(
                output: domain, domains: [domain.id],
                audit: [
                    AuditEntry(
                        action: action, entityType: "domain", entityID: host, domain: host,
                        after: AuditJSON.domain(domain))
                ])
        case .update(_, let makeSettings):
            guard let before else { throw ServiceError.notFound("no domain") }
            let settings = try makeSettings(before)
            if settings.webRoots != before.webRoots {
                try await Self.checkWebRoots(settings.webRoots, of: before.id, session: session)
            }
            try await Self.checkEnvironment(settings.environment, creating: false, session: session)
            let after: DomainRecord
            do {
                after = try await session.updateDomain(
                    id: before.id, aliases: settings.aliases, variables: settings.variables,
                    defaults: settings.defaults, webRoots: settings.webRoots,
                    autoPublish: settings.autoPublish, legacyRootPath: settings.legacyRootPath,
                    environment: settings.environment)
            } catch StoreError.duplicate {
                throw ServiceError.conflict(
                    "an alias already belongs to another domain", field: "/aliases", rule: "unique")
            }
            return Applied(
                output: after, domains: [after.id],
                audit: [
                    AuditEntry(
                        action: action, entityType: "domain", entityID: after.host, domain: after.host,
                        before: AuditJSON.domain(before), after: AuditJSON.domain(after))
                ],
                refreshedHosts: before.aliases == after.aliases ? [] : [after.host])
        case .delete:
            guard let domain = before else { throw ServiceError.notFound("no domain") }
            try await session.deleteDomain(id: domain.id)
            return Applied(
                output: domain, domains: [],
                audit: [
                    AuditEntry(
                        action: action, entityType: "domain", entityID: domain.host, domain: domain.host,
                        before: AuditJSON.domain(domain))
                ],
                removedHosts: [domain.host])
        }
    }

    /// Two domains writing one web root would overwrite each other's file: refused with 409.
    package static func checkWebRoots(_ roots: [String], of domainID: Int64?, session: DBSession) async throws {
        guard !roots.isEmpty else { return }
        try await session.lockUntilCommit(.webRoots)
        let others = try await session.domainsSharing(webRoots: roots, exceptID: domainID)
        guard others.isEmpty else {
            throw ServiceError.conflict(
                """
                a web root is already \(others.joined(separator: ", "))'s: two domains would overwrite each \
                other's file
                """,
                field: "/webRoots", rule: "shared-web-root")
        }
    }

    /// The environment a domain is put in exists; a new domain names one when there are several.
    package static func checkEnvironment(_ name: String?, creating: Bool, session: DBSession) async throws {
        let environments = try await session.listEnvironments().map(\.name)
        if let name {
            guard environments.contains(name) else {
                throw ServiceError.invalid(
                    field: "/environment", rule: "unknown-environment",
                    "there is no environment \(name) (there are \(environments.joined(separator: ", ")))")
            }
        } else if creating, environments.count > 1 {
            throw ServiceError.invalid(
                field: "/environment", rule: "required",
                "name the domain's environment: one of \(environments.joined(separator: ", "))")
        }
    }

    /// Findings about the domain's own settings name the request-body field they came from.
    package func field(for finding: Finding, output: DomainRecord) -> String? {
        for key in ["substitutionVariables", "defaults"] where finding.path.hasPrefix("/applinks/\(key)") {
            return String(finding.path.dropFirst("/applinks".count))
        }
        return nil
    }
}
