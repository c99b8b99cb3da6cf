import AASAModel
import AASAStore

/// What an old assetlinks.json must still be true of before it is published again: every package
/// in it is an Android app registered today, of a team that holds a grant on the domain and is
/// not suspended there, and every fingerprint it lists is one the app still has (a key removed
/// since, a leaked one say, never comes back through a rollback). The file must also still pass
/// the validator.
enum AssetLinksRollbackBounds {
    static func check(_ bytes: [UInt8], number: Int, domain: DomainRecord, session: DBSession) async throws {
        var errors: [FieldError] = []
        for d in AssetLinksValidator.validate(bytes) where d.severity == .error {
            errors.append(FieldError(field: d.path.description, rule: d.code.rawValue, message: d.message))
        }
        let suspended = Set(try await session.suspensions(affecting: domain.id).map(\.teamID))
        for (index, statement) in AssetLinksDocument.parse(bytes).document?.statements ?? [] {
            guard case .androidApp(let package, let fingerprints) = statement.target else { continue }
            let field = "/\(index)/target"
            guard let app = try await session.app(appID: package), app.platform == .android else {
                errors.append(FieldError(field: field + "/package_name", rule: "app-exists", message: "\(package) is no longer a registered Android app"))
                continue
            }
            let grant = try await session.grant(domainID: domain.id, teamID: app.teamID)
            if suspended.contains(app.teamID) || grant == nil {
                errors.append(FieldError(field: field + "/package_name", rule: "grant",
                                         message: "team \(app.teamName), which owns \(package), holds no grant on \(domain.host) today"))
            }
            for f in fingerprints where !app.fingerprints.contains(f) {
                errors.append(FieldError(field: field + "/sha256_cert_fingerprints", rule: "fingerprint-removed",
                                         message: "\(f) is no longer a fingerprint of \(package); a rollback does not bring a removed key back"))
            }
        }
        guard errors.isEmpty else {
            throw APIProblem.invalid(errors, detail: "assetlinks.json revision \(number) of \(domain.host) cannot be published under today's apps and grants: "
                + errors.map { "\($0.field): \($0.message)" }.joined(separator: "; "))
        }
    }
}
