import AASAKernel
import AASAModel
import AASAStore
import Foundation

/// Which URLs a golden URL may pin (issue 24). A team's expectation, of every kind (`opens`,
/// `opensNone`, `notApp`), lies inside the team's own grant on the domain: a team guards its own
/// path space and cannot freeze another team's. An admin's expectation may pin any URL of the
/// domain. One that lies outside its team's grant (registered before this rule, or left outside by
/// a grant that shrank since) is `outOfGrant`: still evaluated and shown, but it blocks no change.
package enum ExpectationScope {
    /// The URL's path as written (percent-encoded), `/` when it has none; nil for no URL.
    package static func path(of url: String) -> String? {
        guard let parts = URLComponents(string: url) else { return nil }
        return parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
    }

    /// Whether `url` lies in the path space of `prefixes`. The path is a literal, so any `*` or
    /// `?` in it is compared as the character it is, not as a wildcard.
    package static func inGrant(url: String, prefixes: [String]) -> Bool {
        guard let path = path(of: url) else { return false }
        let literal = path.replacingOccurrences(of: "*", with: "%2A").replacingOccurrences(of: "?", with: "%3F")
        return PathGrant.covers(prefixes, pathPattern: literal)
    }

    /// Whether the expectation may refuse a change: an admin pinned it, or it lies in its team's grant.
    package static func binds(_ e: ExpectationRecord, grants: [Int64: [String]]) -> Bool {
        e.adminPinned || inGrant(url: e.url, prefixes: grants[e.teamID] ?? [])
    }

    /// Each team's path prefixes on the domain.
    package static func grants(domainID: Int64, session: DBSession) async throws -> [Int64: [String]] {
        prefixes(try await session.listGrants(domainID: domainID))
    }

    /// Each team's path prefixes among `grants`.
    package static func prefixes(_ grants: [GrantRecord]) -> [Int64: [String]] {
        Dictionary(grants.map { ($0.teamID, $0.pathPrefixes) }, uniquingKeysWith: { a, _ in a })
    }

    /// The records with `outOfGrant` set from the domain's grants as this session sees them.
    package static func marked(_ records: [ExpectationRecord], domainID: Int64, session: DBSession) async throws
        -> [ExpectationRecord]
    {
        guard !records.isEmpty else { return records }
        let grants = try await grants(domainID: domainID, session: session)
        return records.map { record in
            var marked = record
            marked.outOfGrant = !binds(record, grants: grants)
            return marked
        }
    }
}
