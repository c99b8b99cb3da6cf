import AASAKernel
import AASAModel
import AASAStore

/// Where an app asks for a domain-wide service (webcredentials, appclips, activitycontinuation)
/// that its team's grant on a domain does not give: the rendered file then leaves the app out of
/// that service's list, silently unless someone says so. Warning `G001`, naming the app, the
/// service, the domain and the grant, wherever the app and that domain meet: the domain's report,
/// write answers, plan and apply, and the app itself. (`applinks` needs path prefixes, not a
/// service: it is never reported here.)
package enum ServiceGrants {
    package static let code = "G001"

    /// The warnings for `app` over its team's `grants` (one per domain).
    package static func findings(app: AppRecord, grants: [GrantRecord]) -> [Finding] {
        let asked = app.services.filter { $0 != .applinks }
        guard !asked.isEmpty else { return [] }
        return grants.filter { $0.teamID == app.teamID }.sorted { $0.host < $1.host }.flatMap { grant in
            asked.filter { !grant.services.contains($0) }.map { service in
                let gives =
                    grant.services.isEmpty ? "no services" : grant.services.map(\.rawValue).joined(separator: ", ")
                return Finding(
                    code: code, path: "/grants/\(grant.teamName)/services",
                    message: "\(app.appID) asks for \(service.rawValue), but team \(grant.teamName)'s grant on "
                        + "\(grant.host) gives \(gives): \(grant.host)'s file does not list it for \(service.rawValue) "
                        + "until an admin adds the service to the grant (PUT /v1/domains/\(grant.host)/grants/"
                        + "\(grant.teamName) with \"services\")",
                    team: app.teamName, appID: app.appID)
            }
        }
    }

    /// The warnings for every app of a domain's state.
    package static func findings(_ snapshot: DomainSnapshot) -> [Finding] {
        snapshot.apps.sorted { $0.appID < $1.appID }.flatMap { findings(app: $0, grants: snapshot.grants) }
    }
}
