import AASAStore
import Crypto
import Foundation

/// The state an import plan was made against, as a manifest plan's `stateTag` is: a digest of the
/// versions of everything the import would write (the domain, each app the files name, each
/// team's grant on the domain and each app's rules there). An apply sent with the plan's tag as
/// `If-Match` is refused (412) when any of them changed in between, so what is applied is what
/// was planned and proved.
package enum ImportStateTag {
    package static func current(host: String, files: ImportFiles, session: DBSession) async throws -> String {
        var lines: [String] = []
        let domain = try await session.domain(host: host)
        lines.append("domain \(domain.map { String($0.version) } ?? "absent")")
        for app in files.apps {
            guard let record = try await session.app(appID: app.appID) else {
                lines.append("app \(app.appID) absent")
                continue
            }
            lines.append("app \(app.appID) \(record.version)")
            if let domain {
                lines.append(
                    "rules \(app.appID) \((try await session.ruleSet(domainID: domain.id, app: record)).version)")
            }
        }
        if let domain {
            for name in Set(files.apps.map(\.team)) {
                guard let team = try await session.team(named: name) else {
                    lines.append("team \(name) absent")
                    continue
                }
                let grant = try await session.grant(domainID: domain.id, teamID: team.id)
                lines.append("grant \(name) \(grant.map { String($0.version) } ?? "absent")")
            }
        }
        let digest = SHA256.hash(data: Data(lines.sorted().joined(separator: "\n").utf8))
        return "\"i-" + Hex.string(digest.prefix(12)) + "\""
    }
}
