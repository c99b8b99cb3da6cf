import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore

/// Which team may register apps under which Apple Team ID prefix (`ABCDE12345` in
/// `ABCDE12345.com.example.app`). An admin binds prefixes to a team; a bound prefix belongs to
/// that team alone, and a team with prefixes registers apps under those only. A prefix no team
/// claims stays open to every team, as before prefixes were bound.
package enum AppleTeamIDs {
    /// The prefixes of a request, each checked, without repeats.
    package static func normalized(_ prefixes: [String]) throws -> [String] {
        guard prefixes.count <= 50 else {
            throw ServiceError.invalid(field: "/appleTeamIDs", rule: "maxItems", "at most 50 prefixes")
        }
        for (i, prefix) in prefixes.enumerated() {
            guard prefix.utf8.count == 10,
                prefix.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) })
            else {
                throw ServiceError.invalid(
                    field: "/appleTeamIDs/\(i)", rule: "apple-team-id",
                    "\(prefix): an Apple Team ID is 10 upper-case letters and digits")
            }
        }
        guard Set(prefixes).count == prefixes.count else {
            throw ServiceError.invalid(field: "/appleTeamIDs", rule: "unique", "a prefix is listed twice")
        }
        return prefixes.sorted()
    }

    /// A team may claim a prefix that no other team claims and under which no other team has apps.
    package static func checkClaim(_ prefixes: [String], by team: TeamRecord, session: DBSession) async throws {
        try await session.lockUntilCommit(.appleTeamIDClaims)
        for (i, prefix) in prefixes.enumerated() {
            if let owner = try await session.teamClaiming(appleTeamID: prefix, exceptTeamID: team.id) {
                throw ServiceError.conflict(
                    "\(prefix) belongs to team \(owner)", field: "/appleTeamIDs/\(i)", rule: "claimed")
            }
            let others = try await session.appIDs(withPrefix: prefix, notOfTeam: team.id)
            if !others.isEmpty {
                throw ServiceError.conflict(
                    "other teams have apps under \(prefix) (\(others.joined(separator: ", "))); move them first",
                    field: "/appleTeamIDs/\(i)", rule: "in-use")
            }
        }
    }

    /// An app of `team` may use its ID's prefix: one of the team's own, or one nobody claims.
    ///
    /// The lock is shared: a binding (`checkClaim`, exclusive) waits for the registrations in flight
    /// and they for it, but registrations never wait for each other. It was exclusive, which made
    /// every app registration of the organisation wait for the one before it to commit
    /// (BENCHMARKS.md: app create at 0.06 of pgbench, its p50 75 ms with 16 writers).
    package static func checkApp(_ appID: String, team: TeamRecord, session: DBSession) async throws {
        let prefix = String(appID.prefix { $0 != "." })
        try await session.lockSharedUntilCommit(.appleTeamIDClaims)
        if !team.appleTeamIDs.isEmpty, !team.appleTeamIDs.contains(prefix) {
            throw ServiceError.forbidden(
                "team \(team.name) registers apps under \(team.appleTeamIDs.joined(separator: ", ")), not \(prefix)")
        }
        if let owner = try await session.teamClaiming(appleTeamID: prefix, exceptTeamID: team.id) {
            throw ServiceError.forbidden("the Apple Team ID \(prefix) belongs to team \(owner)")
        }
    }
}
