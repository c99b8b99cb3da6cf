import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation

extension APIImplementation {
    func getGoogleView(_ input: Operations.GetGoogleView.Input) async throws -> Operations.GetGoogleView.Output {
        _ = try principal()
        let report = try await GoogleReport.read(
            input.path.host, api: google?.api, staleAfter: google?.staleAfter ?? .zero, work: work, checkNow: false)
        return .ok(.init(body: .json(.init(report))))
    }

    func checkGoogle(_ input: Operations.CheckGoogle.Input) async throws -> Operations.CheckGoogle.Output {
        guard try principal().canWrite else { throw ServiceError.forbidden("asking Google needs a write token") }
        guard let google else { throw ServiceError.unavailable("this aasad has no Digital Asset Links API") }
        let report = try await fetchLimiter.run("Google check", host: Self.limiterKey(input.path.host)) {
            do {
                return try await GoogleReport.read(
                    input.path.host, api: google.api, staleAfter: google.staleAfter, work: work, checkNow: true)
            } catch let failure as DigitalAssetLinksAPI.Failure {
                // Google's trouble is not this request's: the last recorded view, and why it is not newer.
                var report = try await GoogleReport.read(
                    input.path.host, api: nil, staleAfter: google.staleAfter, work: work, checkNow: false)
                report.checkError = "\(failure); nothing was recorded"
                return report
            }
        }
        return .ok(.init(body: .json(.init(report))))
    }
}

extension Components.Schemas.GoogleView {
    init(_ r: GoogleReport) {
        self.init(
            host: r.host, assetLinksRevision: r.assetLinksRevision, publishedAt: r.publishedAt,
            checkError: r.checkError,
            packages: r.packages.map {
                .init(
                    package: $0.package, state: .init(rawValue: $0.state) ?? .unknown, message: $0.message,
                    since: $0.status?.since, checkedAt: $0.status?.checkedAt, lagSeconds: $0.lagSeconds,
                    detail: $0.status?.detail, googleFingerprints: $0.status?.fingerprints)
            },
            history: r.history.map {
                .init(at: $0.at, package: $0.package, state: $0.state, revision: $0.revision, detail: $0.detail)
            })
    }
}
