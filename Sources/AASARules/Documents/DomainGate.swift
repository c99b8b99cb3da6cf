import AASAKernel
import AASAModel
import AASAStore
import Foundation
import Metrics

/// The one check every change touching a domain passes before its transaction commits: render
/// the domain as the transaction now sees it and refuse the change (422, nothing written) if the
/// document has errors. Warnings come back to be returned with the success response.
package enum DomainGate {
    /// - Parameter field: names the request-body field a finding is about, when it is about the
    ///   rules being written; otherwise the finding's document pointer is used.
    package static func check(
        _ session: DBSession, domain: DomainRecord,
        field: (Finding) -> String? = { _ in nil }
    ) async throws -> DomainDocument {
        let rendered = try await DomainDocument.render(try await session.snapshot(of: domain))
        let errors = rendered.errors
        let androidErrors = rendered.android.errors
        Counter(
            label: "aasad_domain_validations_total",
            dimensions: [("outcome", errors.isEmpty && androidErrors.isEmpty ? "valid" : "invalid")]
        ).increment()
        guard androidErrors.isEmpty || !errors.isEmpty else {
            let fieldErrors = androidErrors.map { fieldError($0, field: field) }
            throw ServiceError.invalid(
                fieldErrors, warnings: rendered.android.warnings,
                detail: "the domain \(domain.host)'s assetlinks.json would be invalid: "
                    + ServiceError.listed(fieldErrors.map { "\($0.field): \($0.message)" }))
        }
        guard errors.isEmpty else {
            let fieldErrors = errors.map { fieldError(rendered.finding($0), field: field) }
            throw ServiceError.invalid(
                fieldErrors, warnings: rendered.warnings.map(rendered.finding),
                detail: "the domain \(domain.host)'s apple-app-site-association would be invalid: "
                    + ServiceError.listed(fieldErrors.map { "\($0.field): \($0.message)" }))
        }
        return rendered
    }
    /// One refusal's field error: the body field it is about (else the document pointer), and the app
    /// and team it speaks for. The app may be the iOS app whose rules an Android app follows, so it is
    /// "app", whichever file refused.
    private static func fieldError(_ finding: Finding, field: (Finding) -> String?) -> FieldError {
        var message = finding.message
        if let appID = finding.appID { message += " (app \(appID) of team \(finding.team ?? "?"))" }
        return FieldError(field: field(finding) ?? finding.path, rule: finding.code, message: message)
    }
}
