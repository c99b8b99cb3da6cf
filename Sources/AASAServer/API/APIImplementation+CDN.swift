import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import OpenAPIRuntime

extension APIImplementation {
    func probeDomain(_ input: Operations.ProbeDomain.Input) async throws -> Operations.ProbeDomain.Output {
        // It makes aasad fetch from the outside, as the CDN check does: a read token may not.
        guard try principal().canWrite else { throw ServiceError.forbidden("probing the origin needs a write token") }
        let host = Self.limiterKey(input.path.host)
        let report = try await fetchLimiter.run("probe", host: host) {
            try await OriginProbe(fetcher: fetcher, work: work).probe(input.path.host)
        }
        let results = try report.results.map { r -> Components.Schemas.ProbeResult in
            var headers: [String: String] = [:]
            for h in r.fetched.headers { headers[h.name.lowercased()] = h.value }
            return .init(
                url: r.fetched.url, file: .init(rawValue: r.file) ?? .appleAppSiteAssociation, host: r.host,
                status: r.fetched.status, elapsedMs: (r.fetched.elapsedMs * 10).rounded() / 10,
                headers: .init(additionalProperties: headers), byteCount: r.fetched.bytes?.count,
                sha256: r.verdict.sha256,
                revision: r.verdict.revision, ok: r.ok,
                findings: r.verdict.findings.map(Self.finding),
                diff: try r.verdict.diff.map { try OpenAPIValueContainer(json: $0) })
        }
        return .ok(
            .init(
                body: .json(
                    .init(
                        host: report.host, checkedAt: Date(), currentRevision: report.currentRevision,
                        ok: report.ok, results: results))))
    }

    func getLastProbe(_ input: Operations.GetLastProbe.Input) async throws -> Operations.GetLastProbe.Output {
        _ = try principal()
        let last = try await OriginProbe(fetcher: fetcher, work: work).last(input.path.host)
        guard let probe = last.probe else {
            throw ServiceError.notFound("\(last.host) has not been probed yet (POST …/probe)")
        }
        return .ok(
            .init(
                body: .json(
                    .init(
                        host: last.host, checkedAt: probe.checkedAt, ok: probe.ok, urls: probe.urls,
                        findings: probe.findings.map { f in
                            let code = ProbeFinding.Code(rawValue: f.code)
                            return .init(
                                url: f.url, code: f.code, name: code?.name ?? f.code,
                                severity: code?.isWarning == true ? .warning : .error, message: f.message)
                        }))))
    }

    func getCDNStatus(_ input: Operations.GetCDNStatus.Input) async throws -> Operations.GetCDNStatus.Output {
        _ = try principal()
        return .ok(
            .init(
                body: .json(
                    Self.cdn(try await CDNReport.read(input.path.host, fetcher: fetcher, work: work, checkNow: false))))
        )
    }

    func checkCDN(_ input: Operations.CheckCDN.Input) async throws -> Operations.CheckCDN.Output {
        guard try principal().canWrite else { throw ServiceError.forbidden("asking Apple's CDN needs a write token") }
        let report = try await fetchLimiter.run("CDN check", host: Self.limiterKey(input.path.host)) {
            try await CDNReport.read(input.path.host, fetcher: fetcher, work: work, checkNow: true)
        }
        return .ok(.init(body: .json(Self.cdn(report))))
    }

    /// The domain a fetch is counted against: its host as stored, whatever spelling the path used.
    static func limiterKey(_ pathHost: String) -> String {
        (try? HostName.normalized(pathHost)) ?? pathHost.lowercased()
    }

    static func finding(_ f: ProbeFinding) -> Components.Schemas.ProbeFinding {
        .init(
            code: f.code.rawValue, name: f.code.name, severity: f.code.isWarning ? .warning : .error, message: f.message
        )
    }

    static func cdn(_ r: CDNReport) -> Components.Schemas.CDNStatus {
        .init(
            host: r.host, cdnURL: r.cdnURL, state: .init(rawValue: r.state) ?? .unknown, message: r.message,
            revision: r.status?.revision,
            currentRevision: r.currentRevision, publishedAt: r.publishedAt, since: r.status?.since,
            checkedAt: r.status?.checkedAt,
            lagSeconds: r.lagSeconds, httpStatus: r.status?.httpStatus, detail: r.status?.detail,
            history: r.history.map { .init(at: $0.at, state: $0.state, revision: $0.revision, detail: $0.detail) })
    }
}
