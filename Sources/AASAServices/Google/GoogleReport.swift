import AASAKernel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// `GET /v1/domains/{host}/google`: what Google's Digital Asset Links API says of each Android
/// package of the domain's current assetlinks.json, against it, with the history of changes.
package struct GoogleReport: Sendable {
    package struct Package: Sendable {
        package var status: GoogleStatusRecord?
        package var package: String
        /// verified, stale, not-linked, error, or unknown (never checked against this revision).
        package var state: String
        package var message: String
        /// Seconds since the current revision was published while Google lists other keys.
        package var lagSeconds: Int?
    }

    package var host: String
    package var assetLinksRevision: Int?
    package var publishedAt: Date?
    package var packages: [Package]
    package var history: [GoogleEventRecord]
    /// Set when a check was asked and Google did not give an answer to record.
    package var checkError: String? = nil

    package static func read(
        _ host: String, api: DigitalAssetLinksAPI?, staleAfter: Duration, work: RequestWork, checkNow: Bool
    ) async throws -> GoogleReport {
        try await work.read { session in
            let domain = try await Lookup.domain(host, session: session)
            if checkNow, let api {
                try await GoogleCheck.check(domain, api: api, staleAfter: staleAfter, session: session)
            }
            let current = try await session.currentAssetLinksRevision(domainID: domain.id)
            let statuses = try await session.googleStatus(domainID: domain.id)
            let packages = current.map { current in
                GoogleCheck.packages(current).map { entry -> Package in
                    let status = statuses.first { $0.package == entry.package && $0.revision == current.number }
                    return Self.package(entry.package, status: status, current: current, host: domain.host)
                }
            }
            return GoogleReport(
                host: domain.host, assetLinksRevision: current?.number, publishedAt: current?.createdAt,
                packages: packages ?? [], history: try await session.googleEvents(domainID: domain.id, limit: 20))
        }
    }

    private static func package(_ name: String, status: GoogleStatusRecord?, current: RevisionRecord, host: String)
        -> Package
    {
        var entry = Package(status: status, package: name, state: status?.state ?? "unknown", message: "")
        let ago = CDNReport.duration(Date().timeIntervalSince(current.createdAt))
        switch status?.state {
        case "verified"?:
            entry.message = "Google links \(host) to \(name) with the keys of revision \(current.number)"
        case "stale"?:
            entry.lagSeconds = Int(Date().timeIntervalSince(current.createdAt))
            entry.message =
                "\(status?.detail ?? "Google lists other keys"); revision \(current.number) was published \(ago) "
                + "ago. Google caches statements for the maxAge it gives; a device verifies against Google's reading"
        case "not-linked"?:
            entry.message = "Google does not link \(host) to \(name): \(status?.detail ?? "no reason given")"
        case "error"?:
            entry.message = "Google's last answer could not be used: \(status?.detail ?? "unknown")"
        default:
            entry.message =
                "not checked against revision \(current.number) yet: POST /v1/domains/\(host)/google/check, or run "
                + "aasad with AASA_GOOGLE_INTERVAL"
        }
        return entry
    }
}
