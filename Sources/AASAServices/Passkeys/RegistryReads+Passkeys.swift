import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// The passkey reads (issue 52), with the registry's visibility: domains and their related origins
/// are everyone's to read (the file is public), an app's relying parties its team's and an admin's,
/// and a team's report names only its own clients.
extension RegistryReads {
    package func relatedOrigins(_ host: String) async throws -> (host: String, origins: [RelatedOriginRecord]) {
        try await work.read { session in
            let domain = try await Lookup.domain(host, session: session)
            return (domain.host, try await session.relatedOrigins(domainID: domain.id))
        }
    }

    package func passkeyRelyingParties(_ appID: String) async throws -> (appID: String, relyingParties: [String]) {
        try await work.read { session in
            let app = try await Lookup.visibleApp(appID, principal, session: session)
            return (app.appID, try await session.passkeyRelyingParties(appID: app.id))
        }
    }

    package func relyingPartyReport(_ rpID: String) async throws -> RelyingPartyReport {
        let rp = try Self.rpID(rpID)
        var report = try await work.read { session in
            try await Self.checkKnown(rp, session: session)
            return try await RelyingPartyReport.build(rp, session: session)
        }
        if !principal.isAdmin { report.clients = report.clients.filter { $0.team == principal.teamName } }
        return report
    }

    package func relyingPartyOrigins(_ rpID: String) async throws -> (rpID: String, origins: [PasskeyOrigin]) {
        let rp = try Self.rpID(rpID)
        return (
            rp,
            try await work.read { session in
                try await Self.checkKnown(rp, session: session)
                return try await PasskeyOrigins.of(rp, session: session)
            }
        )
    }

    /// A relying party this registry has: a domain of it, or one an app names as its relying party.
    /// Any other is 404: a typo answered with its own origin and nothing else looked plausible, and a
    /// deploy job would configure its passkey server with it.
    static func checkKnown(_ rp: String, session: DBSession) async throws {
        if try await session.domain(host: rp) != nil { return }
        if try await session.passkeyOriginInputs().relyingParties.contains(rp) { return }
        throw ServiceError.notFound(
            "no relying party \(rp): it is no domain of this registry and no app names it "
                + "(aasactl passkeys clients APP \(rp) marks an app as its client)")
    }

    /// A relying party ID as a path names it: a host name, normalized (400 otherwise).
    static func rpID(_ text: String) throws -> String {
        do { return try HostName.associatedDomain(text) } catch {
            throw ServiceError.badRequest("\(text) is not a relying party ID (a host name): \(error)", field: "rpID")
        }
    }
}
