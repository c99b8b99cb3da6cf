import AASAKernel
import AASAModel
import AASAStore

/// What an old assetlinks.json must still be true of before it is published again: every package
/// in it is an Android app registered today, of a team that holds a grant on the domain and is
/// not suspended there, and every fingerprint it lists is one the app still has (a key removed
/// since, a leaked one say, never comes back through a rollback). The file must also still pass
/// the validator.
package enum AssetLinksRollbackBounds {
    package static func check(_ bytes: [UInt8], number: Int, domain: DomainRecord, session: DBSession) async throws {
        var errors: [FieldError] = []
        for d in AssetLinksValidator.validate(bytes) where d.severity == .error {
            errors.append(FieldError(field: d.path.description, rule: d.code.rawValue, message: d.message))
        }
        let suspended = Set(try await session.suspensions(affecting: domain.id).map(\.teamID))
        for (index, statement) in AssetLinksDocument.parse(bytes).document?.statements ?? [] {
            guard case .androidApp(let package, let fingerprints) = statement.target else { continue }
            let field = "/\(index)/target"
            guard let app = try await session.app(appID: package), app.platform == .android else {
                errors.append(
                    FieldError(
                        field: field + "/package_name", rule: "app-exists",
                        message: "\(package) is no longer a registered Android app"))
                continue
            }
            let grant = try await session.grant(domainID: domain.id, teamID: app.teamID)
            if suspended.contains(app.teamID) || grant == nil {
                errors.append(
                    FieldError(
                        field: field + "/package_name", rule: "grant",
                        message: "team \(app.teamName), which owns \(package), holds no grant on \(domain.host) today"))
            }
            for f in fingerprints where !app.fingerprints.contains(f) {
                errors.append(
                    FieldError(
                        field: field + "/sha256_cert_fingerprints", rule: "fingerprint-removed",
                        message:
                            """
                            \(f) is no longer a fingerprint of \(package); a rollback does not bring a removed \
                            key back
                            """
                    ))
            }
        }
        guard errors.isEmpty else {
            throw ServiceError.invalid(
                errors,
                detail:
                    "assetlinks.json revision \(number) of \(domain.host) cannot be published under today's apps and "
                    + "grants: "
                    + ServiceError.listed(errors.map { "\($0.field): \($0.message)" }))
        }
    }

    /// A team rolls back only its own part: every statement of another team's package (or of a
    /// package no team owns) must read the same in the old file as in the current one.
    package static func checkOwnPart(old: [UInt8], current: [UInt8], number: Int, team: String, session: DBSession)
        async throws
    {
        func byPackage(_ bytes: [UInt8]) -> [String: [JSONValue]] {
            var out: [String: [JSONValue]] = [:]
            guard let document = AssetLinksDocument.parse(bytes).document, case .array(let items) = document.root else {
                return out
            }
            for (index, statement) in document.statements {
                if case .androidApp(let package, _) = statement.target {
                    out[package, default: []].append(items[index])
                }
            }
            return out
        }
        let before = byPackage(current)
        let after = byPackage(old)
        let packages = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
        let owners = try await session.teamNames(ofApps: Array(packages))
        let others = Set(packages.filter { owners[$0] != team }.map { owners[$0] ?? "no team (\($0))" }).sorted()
        guard others.isEmpty else {
            throw ServiceError.forbidden(
                "rolling assetlinks.json back to revision \(number) would change the statements of "
                    + """
                    \(others.joined(separator: ", ")); a team rolls back only its own part of the file, an admin \
                    may roll back all of it
                    """
            )
        }
    }
}
