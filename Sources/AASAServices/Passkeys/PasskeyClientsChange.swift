import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// Marking an app as a passkey client of relying parties (by RP ID), by its team or an admin
/// (issue 52): the readiness report and the origins export are about these apps. The list given
/// replaces the app's.
package struct PasskeyClientsChange: DomainChange {
    package let appID: String
    package let relyingParties: [String]
    package let ifMatch: String?

    package init(appID: String, relyingParties: [String], ifMatch: String?) {
        self.appID = appID
        self.relyingParties = relyingParties
        self.ifMatch = ifMatch
    }

    package var action: String { "passkey-clients.replace" }

    package struct Locked: Sendable {
        package var app: AppRecord
        package var before: [String]
    }

    /// At most 20 relying parties, each a host name, none twice; the normalized list.
    package static func normalized(_ relyingParties: [String]) throws -> [String] {
        guard relyingParties.count <= 20 else {
            throw ServiceError.invalid(field: "/relyingParties", rule: "maxItems", "an app names at most 20")
        }
        var seen: [String] = []
        for (i, rp) in relyingParties.enumerated() {
            let host: String
            do { host = try HostName.associatedDomain(rp) } catch {
                throw ServiceError.invalid(
                    field: "/relyingParties/\(i)", rule: "rp-id", "\(rp) is not a relying party ID (a host): \(error)")
            }
            guard !seen.contains(host) else {
                throw ServiceError.invalid(field: "/relyingParties/\(i)", rule: "unique", "\(host) is listed twice")
            }
            seen.append(host)
        }
        return seen.sorted()
    }

    package func authorize(_ principal: Principal) throws {
        guard principal.canWrite else { throw ServiceError.forbidden("a read token cannot change an app") }
        _ = try Self.normalized(relyingParties)
    }

    package func lock(_ session: DBSession, principal: Principal) async throws -> Locked {
        let app = try await Lookup.visibleApp(appID, principal, session: session, forUpdate: true)
        return Locked(app: app, before: try await session.passkeyRelyingParties(appID: app.id))
    }

    /// An app's Android keys become origins in its relying parties' export, which their owners feed
    /// to their passkey servers: so a team names a relying party only where it may list related
    /// origins, on a domain of the registry where its grant includes `webcredentials`; any other
    /// relying party is an admin's to name. One already on the app's list stays (a team always takes
    /// its app off a relying party).
    static func checkMayClaim(_ rpID: String, app: AppRecord, session: DBSession) async throws {
        guard let domain = try await session.domain(host: rpID) else {
            throw ServiceError.forbidden(
                "\(rpID) is not a domain of this registry: only an admin names it as a relying party of \(app.appID)")
        }
        guard let grant = try await session.grant(domainID: domain.id, teamID: app.teamID),
            grant.services.contains(.webcredentials)
        else {
            throw ServiceError.forbidden(
                "team \(app.teamName)'s grant on \(domain.host) does not include webcredentials, so \(app.appID) "
                    + "cannot claim it as a relying party: ask an admin for webcredentials in the grant")
        }
    }

    package func checkIfMatch(_ locked: Locked) throws {
        try ETag.check(ifMatch, version: locked.app.version)
    }

    package func apply(_ locked: Locked, principal: Principal, session: DBSession) async throws -> Applied<[String]> {
        let after = try Self.normalized(relyingParties)
        if !principal.isAdmin {
            for rpID in after where !locked.before.contains(rpID) {
                try await Self.checkMayClaim(rpID, app: locked.app, session: session)
            }
        }
        try await session.setPasskeyRelyingParties(appID: locked.app.id, after)
        return Applied(
            output: after, domains: [],
            audit: [
                AuditEntry(
                    action: action, entityType: "passkey-clients", entityID: locked.app.appID,
                    team: locked.app.teamName, appID: locked.app.appID,
                    before: .array(locked.before.map { .string($0) }), after: .array(after.map { .string($0) }))
            ])
    }
}
