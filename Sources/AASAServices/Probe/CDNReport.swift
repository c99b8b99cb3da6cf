import AASAKernel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// `GET /v1/domains/{host}/cdn`: what Apple's CDN serves for the domain, in one sentence and in
/// fields, with the history of changes.
package struct CDNReport: Sendable {
    package var host: String
    package var cdnURL: String
    /// converged, stale, absent, error, or unknown (never checked).
    package var state: String
    package var message: String
    package var status: CDNStatusRecord?
    package var currentRevision: Int?
    package var publishedAt: Date?
    /// Seconds since the current revision was published while the CDN serves something else.
    package var lagSeconds: Int?
    package var history: [CDNEventRecord]

    package static func read(_ host: String, fetcher: OutboundClient, work: RequestWork, checkNow: Bool) async throws
        -> CDNReport
    {
        try await work.read { session in
            let domain = try await Lookup.domain(host, session: session)
            let status =
                checkNow
                ? try await CDNCheck.check(domain, fetcher: fetcher, session: session)
                : try await session.cdnStatus(domainID: domain.id)
            let current = try await session.currentRevision(of: domain)
            let history = try await session.cdnEvents(domainID: domain.id, limit: 20)
            var report = CDNReport(
                host: domain.host, cdnURL: fetcher.config.cdnBaseURL + domain.host, state: status?.state ?? "unknown",
                message: "", status: status, currentRevision: current?.number, publishedAt: current?.createdAt,
                lagSeconds: nil, history: history)
            let ago = current.map { Self.duration(Date().timeIntervalSince($0.createdAt)) } ?? ""
            switch status?.state {
            case "converged"?:
                report.message =
                    """
                    converged on revision \(status?.revision ?? 0) since \
                    \(ISO8601DateFormatter().string(from: status!.since))
                    """
            case "stale"?:
                report.lagSeconds = current.map { Int(Date().timeIntervalSince($0.createdAt)) }
                let serving =
                    status?.revision.map { "serving revision \($0)" }
                    ?? "serving a file that is no revision published here"
                report.message =
                    "\(serving); revision \(current?.number ?? 0) was published \(ago) ago. The CDN refreshes on its "
                    + "own schedule "
                    + "(up to 48 h); test now with applinks:\(domain.host)?mode=developer on a development device"
            case "absent"?:
                report.message =
                    "the CDN has no file for \(domain.host) (404): it has not fetched one yet, or its last fetch of "
                    + "the origin failed; "
                    + "run the origin probe (POST /v1/domains/\(domain.host)/probe)"
            case "error"?:
                report.message = "the CDN's last answer was an error: \(status?.detail ?? "unknown")"
            default:
                report.message =
                    "not checked yet: POST /v1/domains/\(domain.host)/cdn/check, or run aasad with --cdn-interval"
            }
            return report
        }
    }

    package static func duration(_ seconds: TimeInterval) -> String {
        let s = Int(seconds)
        if s < 120 { return "\(s) s" }
        if s < 7200 { return "\(s / 60) min" }
        return "\(s / 3600) h"
    }
}
