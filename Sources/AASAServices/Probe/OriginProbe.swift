import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation
import Logging
import Metrics

/// `POST /v1/domains/{host}/probe`: fetch the domain's file from every host it is served for (and
/// the legacy root path where the domain writes it) as Apple's fetcher does, and say what is wrong
/// and which revision the origin really serves.
package struct OriginProbe: Sendable {
    package let fetcher: OutboundClient
    package let work: RequestWork

    package init(fetcher: OutboundClient, work: RequestWork) {
        self.fetcher = fetcher
        self.work = work
    }

    package struct Result: Sendable {
        /// `apple-app-site-association` or `assetlinks.json`.
        package var file: String
        package var host: String
        package var fetched: Fetched
        package var verdict: FileVerdict
        /// Whether this URL serves its file's current revision without an error finding;
        /// assetlinks.json before its first revision (a 404 then is no finding) is ok.
        package var ok: Bool
    }

    package struct Report: Sendable {
        package var host: String
        package var currentRevision: Int?
        /// assetlinks.json's current revision (nil while it has none).
        package var currentAssetLinksRevision: Int?
        package var results: [Result]

        package var ok: Bool { results.allSatisfy(\.ok) }
    }

    package func probe(_ host: String) async throws -> Report {
        let (domain, current) = try await work.read { session in
            let domain = try await Lookup.domain(host, session: session)
            var current: [PublishedFile: RevisionRecord] = [:]
            for file in PublishedFile.allCases { current[file] = try await file.current(session, domain: domain) }
            return (domain, current)
        }
        var targets: [(host: String, url: String, file: PublishedFile)] = []
        for name in [domain.host] + domain.aliases {
            targets.append(
                (name, fetcher.originURL(host: name, path: "/.well-known/apple-app-site-association"), .aasa))
            if domain.legacyRootPath {
                targets.append((name, fetcher.originURL(host: name, path: "/apple-app-site-association"), .aasa))
            }
            targets.append((name, fetcher.originURL(host: name, path: "/.well-known/assetlinks.json"), .assetLinks))
            // Only where there is one: most domains are no relying party, and a 404 there says nothing.
            if current[.webauthn] != nil {
                targets.append((name, fetcher.originURL(host: name, path: "/.well-known/webauthn"), .webauthn))
            }
        }
        // Every URL at once: the probe takes as long as the slowest host, not their sum.
        let fetched = await withTaskGroup(of: (Int, Fetched).self) { group in
            for (i, target) in targets.enumerated() { group.addTask { (i, await fetcher.fetch(target.url)) } }
            var out: [Int: Fetched] = [:]
            for await (i, f) in group { out[i] = f }
            return targets.indices.map { out[$0]! }
        }
        var results: [Result] = []
        for (target, f) in zip(targets, fetched) {
            let revision = current[target.file]
            let verdict = try await work.read { session in
                try await FetchedFile.verdict(target.file, f, domain: domain, current: revision, session: session)
            }
            for finding in verdict.findings {
                Counter(label: "aasad_probe_failures_total", dimensions: [("code", finding.code.rawValue)]).increment()
            }
            // A domain with no assetlinks.json revision is fine with none served; the AASA must match.
            let ok =
                target.file == .aasa
                ? verdict.ok && verdict.revision == revision?.number
                : verdict.ok && (revision == nil || verdict.revision == revision?.number)
            results.append(Result(file: target.file.name, host: target.host, fetched: f, verdict: verdict, ok: ok))
        }
        let report = Report(
            host: domain.host, currentRevision: current[.aasa]?.number,
            currentAssetLinksRevision: current[.assetLinks]?.number,
            results: results)
        // The last probe is kept for whoever looks next (the console's overview, GET …/probe).
        try await work.transaction { session in
            try await session.recordProbe(
                domainID: domain.id, ok: report.ok, urls: results.count,
                findings: results.flatMap { r in
                    r.verdict.findings.map { .init(url: r.fetched.url, code: $0.code.rawValue, message: $0.message) }
                })
        }
        return report
    }

    /// The domain's last probe (nil: never probed).
    package func last(_ host: String) async throws -> (host: String, probe: ProbeRecord?) {
        try await work.read { session in
            let domain = try await Lookup.domain(host, session: session)
            return (domain.host, try await session.lastProbe(domainID: domain.id))
        }
    }
}
