import AASAKernel
import AASAOutbound
import AASARules
import AASAStore

/// The state an import plan was made against, as a manifest plan's `stateTag` is: a digest of the
/// versions of everything the import would write (the domain, each app the files name, each
/// team's grant on the domain and each app's rules there). An apply sent with the plan's tag as
/// `If-Match` is refused (412) when any of them changed in between, so what is applied is what
/// was planned and proved.
package enum ImportStateTag {
    package static func current(host: String, files: ImportFiles, session: DBSession) async throws -> String {
        var state = StateTag()
        let domain = try await session.domain(host: host)
        state.record("domain", version: domain?.version)
        for app in files.apps {
            try await state.recordApp(
                app.appID, try await session.app(appID: app.appID), on: domain.map { [$0] } ?? [], session: session)
        }
        if let domain {
            // The related origins an imported /.well-known/webauthn is compared with and added to.
            let origins = try await session.relatedOrigins(domainID: domain.id).map(\.origin)
            state.record("related origins", text: origins.joined(separator: " "))
            for name in Set(files.apps.map(\.team)) {
                guard let team = try await session.team(named: name) else {
                    state.record("team \(name)", version: nil)
                    continue
                }
                state.record(
                    "grant \(name)", version: try await session.grant(domainID: domain.id, teamID: team.id)?.version)
            }
        }
        return state.tag("i")
    }
}
