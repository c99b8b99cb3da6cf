import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation
import Logging
import Metrics
import ServiceLifecycle

/// Watches what Apple's CDN serves for each domain (`<cdn base URL><host>`, the file devices since
/// iOS 14 fetch instead of the origin's), and keeps in PostgreSQL the revision it serves, since
/// when, the last error and the history of changes.
///
/// One replica at a time: a pass runs only on the replica that takes the `cdnMonitor` advisory
/// lock without waiting, and checks only domains nobody checked within half an interval, so
/// replicas whose timers drift apart do not fetch twice either. Between two fetches it waits
/// `gap`, so a thousand domains do not hit Apple's CDN at once.
package struct CDNMonitor: Service {
    package let database: Database
    package let fetcher: OutboundClient
    package let interval: Duration
    package let gap: Duration
    package let logger: Logger

    package init(database: Database, fetcher: OutboundClient, interval: Duration, gap: Duration, logger: Logger) {
        self.database = database
        self.fetcher = fetcher
        self.interval = interval
        self.gap = gap
        self.logger = logger
    }

    package func run() async throws {
        try await PeriodicService(
            "CDN monitor pass", every: interval, firstAfter: interval, logger: logger, onError: tellMonitorError
        ) {
            let checked = try await runPass()
            logger.debug(
                "CDN monitor pass",
                metadata: ["domains": .string(checked.map(String.init) ?? "another replica runs it")])
        }.run()
    }

    /// `monitor.error`, on a connection of its own (the pass's may be what failed); if the database
    /// is what failed, the log and the alert rules say it instead.
    package func tellMonitorError(_ error: any Error) async {
        _ = try? await database.withConnection { connection in
            try await DBSession(connection: connection, logger: logger).emitWebhookEvent(
                WebhookEvent(
                    name: "monitor.error", domain: nil, team: nil, actor: "aasad",
                    text: "the CDN monitor's pass failed: \(error)", data: .object(["error": .string("\(error)")])))
        }
    }

    /// One pass over the domains due; nil when another replica is running one.
    package func runPass() async throws -> Int? {
        try await database.withConnection { connection in
            let session = DBSession(connection: connection, logger: logger)
            return try await session.holdingIfFree(.cdnMonitor) {
                let cutoff = Date().addingTimeInterval(-Double(interval.components.seconds) / 2)
                var checked = 0
                for id in try await session.domainsDueForCDNCheck(checkedBefore: cutoff) {
                    if checked > 0 { try await Task.sleep(for: gap) }
                    guard let domain = try await session.domain(id: id) else { continue }
                    _ = try await CDNCheck.check(domain, fetcher: fetcher, session: session)
                    checked += 1
                }
                return checked
            }
        }
    }
}

/// One check of one domain against Apple's CDN, recorded; also `POST /v1/domains/{host}/cdn/check`.
package enum CDNCheck {
    package static func check(_ domain: DomainRecord, fetcher: OutboundClient, session: DBSession) async throws
        -> CDNStatusRecord
    {
        let url = fetcher.config.cdnBaseURL + domain.host
        let fetched = await fetcher.fetch(url)
        let current = try await session.currentRevision(of: domain)
        let state: String
        var revision: Int?
        var sha: String?
        var detail: String?
        if fetched.status == 404 {
            state = "absent"
            detail =
                """
                the CDN has no file for \(domain.host) (404): it has not fetched one, or its last fetch of the \
                origin failed
                """
        } else {
            let verdict = try await FetchedFile.verdict(fetched, domain: domain, current: current, session: session)
            revision = verdict.revision
            sha = verdict.sha256
            let blocking = verdict.findings.filter { !$0.code.isWarning }
            if fetched.status == 200, sha != nil,
                blocking.allSatisfy({ [.staleRevision, .unknownBytes, .lintErrors, .notPublished].contains($0.code) })
            {
                state = revision != nil && revision == current?.number ? "converged" : "stale"
                detail = blocking.first?.message
            } else {
                state = "error"
                detail = blocking.first?.message ?? "HTTP \(fetched.status.map(String.init) ?? "no answer")"
                for finding in blocking {
                    Counter(label: "aasad_probe_failures_total", dimensions: [("code", finding.code.rawValue)])
                        .increment()
                }
            }
        }
        let (before, status) = try await session.recordCDNCheck(
            domainID: domain.id, state: state, revision: revision, sha256: sha,
            httpStatus: fetched.status, detail: detail)
        try await CDNNotifications.tell(
            domain: domain, before: before, after: status, current: current,
            staleAfter: fetcher.config.cdnStaleAfter, session: session)
        // Gauges on the replica that checked; Prometheus keeps the newest sample per series.
        let behind = state == "converged" ? 0 : (current?.number ?? 0) - (revision ?? 0)
        Gauge(label: "aasad_cdn_revisions_behind", dimensions: [("host", domain.host)]).record(Double(max(behind, 0)))
        let lag = state == "converged" ? 0 : current.map { Date().timeIntervalSince($0.createdAt) } ?? 0
        Gauge(label: "aasad_cdn_lag_seconds", dimensions: [("host", domain.host)]).record(lag)
        return status
    }
}
