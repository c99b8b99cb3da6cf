import AASAAPI
import AASAModel
import AASAStore
import Foundation

extension APIImplementation {
    func listTeamApps(_ input: Operations.ListTeamApps.Input) async throws -> Operations.ListTeamApps.Output {
        let principal = try principal()
        let apps = try await reads(principal).apps(team: input.path.team)
        return .ok(.init(body: .json(.init(items: apps.map { Components.Schemas.App($0) }))))
    }

    static func services(_ list: [Components.Schemas.Service]?, field: String, platform: AppPlatform = .ios) throws
        -> [AppService]
    {
        let services = (list ?? [.applinks]).compactMap { AppService(rawValue: $0.rawValue) }
        guard Set(services).count == services.count else {
            throw ServiceError.invalid(field: field, rule: "unique", "a service is listed twice")
        }
        if let bad = services.first(where: { !platform.services.contains($0) }) {
            throw ServiceError.invalid(
                field: field, rule: "platform",
                """
                an \(platform.rawValue) app has no \(bad.rawValue) service (it has \
                \(platform.services.map(\.rawValue).joined(separator: ", ")))
                """
            )
        }
        return AppService.allCases.filter(services.contains)
    }

    /// `rulesFrom` within openapi.yaml's bound (the generated code does not check it).
    static func rulesFrom(_ value: String?) throws -> String? {
        if let value, value.count > 255 {
            throw ServiceError.invalid(field: "/rulesFrom", rule: "maxLength", "an app ID is at most 255 characters")
        }
        return value
    }

    /// An Android app's fingerprints: 1 to 20, each 32 colon-separated upper-case hex bytes (a
    /// lower-case, colon-less or SHA-1 one is refused with its fix), none twice.
    static func fingerprints(_ list: [String]?, field: String) throws -> [String] {
        guard let list, !list.isEmpty else {
            throw ServiceError.invalid(
                field: field, rule: "required", "an Android app lists its signing certificates' SHA-256 fingerprints")
        }
        guard list.count <= 20 else {
            throw ServiceError.invalid(field: field, rule: "maxItems", "at most 20 fingerprints")
        }
        var errors: [FieldError] = []
        for (i, f) in list.enumerated() {
            if f.count > 200 {
                errors.append(
                    FieldError(
                        field: "\(field)/\(i)", rule: "maxLength", message: "a fingerprint is at most 200 characters"))
            } else if let problem = AssetLinksValidator.fingerprintProblem(f) {
                errors.append(
                    FieldError(
                        field: "\(field)/\(i)", rule: "fingerprint",
                        message: "\(problem.code.rawValue): \(problem.message)"))
            } else if list[..<i].contains(f) {
                errors.append(FieldError(field: "\(field)/\(i)", rule: "unique", message: "\(f) is listed twice"))
            }
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }
        return list
    }

    func createApp(_ input: Operations.CreateApp.Input) async throws -> Operations.CreateApp.Output {
        _ = try principal()  // 401 before the body is read
        let body =
            switch input.body {
            case .json(let body): body
            }
        let app = try AppInput.check(
            appID: body.appID, platform: AppPlatform(rawValue: body.platform?.rawValue ?? "ios") ?? .ios,
            services: body.services, fingerprints: body.fingerprints, rulesFrom: body.rulesFrom, pointer: "")
        let changed = try await change(
            AppChange(
                kind: .create(
                    team: input.path.team, appID: app.appID, services: app.services,
                    android: app.fingerprints, rulesFrom: app.rulesFrom), ifMatch: nil))
        return .created(
            .init(
                headers: .init(eTag: ETag.of(changed.output.version)),
                body: .json(.init(changed.output, warnings: Self.serviceWarnings(changed.warnings, of: changed.output)))
            ))
    }

    func getApp(_ input: Operations.GetApp.Input) async throws -> Operations.GetApp.Output {
        let principal = try principal()
        let (app, warnings) = try await reads(principal).appWithWarnings(input.path.appID)
        return .ok(.init(headers: .init(eTag: ETag.of(app.version)), body: .json(.init(app, warnings: warnings))))
    }

    func updateApp(_ input: Operations.UpdateApp.Input) async throws -> Operations.UpdateApp.Output {
        let body =
            switch input.body {
            case .json(let body): body
            }
        // The platform's own services are checked against the app.
        let services = try body.services.map { try Self.services($0, field: "/services") }
        let fingerprints = try body.fingerprints.map { try Self.fingerprints($0, field: "/fingerprints") }
        let changed = try await change(
            AppChange(
                kind: .update(
                    appID: input.path.appID, team: body.team, services: services,
                    fingerprints: fingerprints, rulesFrom: try Self.rulesFrom(body.rulesFrom)),
                ifMatch: input.headers.ifMatch))
        return .ok(
            .init(
                headers: .init(eTag: ETag.of(changed.output.version)),
                body: .json(.init(changed.output, warnings: Self.serviceWarnings(changed.warnings, of: changed.output)))
            ))
    }

    /// The change's `G001` warnings about this app: the domains it reached whose grant lacks a
    /// service it asks for.
    static func serviceWarnings(_ warnings: [Finding], of app: AppRecord) -> [Finding] {
        var seen = Set<String>()
        return warnings.filter {
            $0.code == ServiceGrants.code && $0.appID == app.appID && seen.insert($0.message).inserted
        }
    }

    func deleteApp(_ input: Operations.DeleteApp.Input) async throws -> Operations.DeleteApp.Output {
        _ = try await change(AppChange(kind: .delete(appID: input.path.appID), ifMatch: input.headers.ifMatch))
        return .noContent(.init())
    }
}

extension APIImplementation {
    func getEntitlements(_ input: Operations.GetEntitlements.Input) async throws -> Operations.GetEntitlements.Output {
        let (_, identity, hosts) = try await reads(try principal()).entitlementHosts(
            input.path.appID, environment: input.query.env)
        let mode = input.query.mode.flatMap { AssociatedDomains.Mode(rawValue: $0.rawValue) }
        let entries = AssociatedDomains.entries(hosts, mode: mode)
        return .ok(
            .init(
                body: .json(
                    .init(
                        appID: identity, mode: input.query.mode.flatMap { .init(rawValue: $0.rawValue) },
                        associatedDomains: entries, plist: AssociatedDomains.plist(entries)))))
    }
}
