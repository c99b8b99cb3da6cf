import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation

extension APIImplementation {
    func listTeamApps(_ input: Operations.ListTeamApps.Input) async throws -> Operations.ListTeamApps.Output {
        let principal = try principal()
        let apps = try await reads(principal).apps(team: input.path.team)
        return .ok(.init(body: .json(.init(items: apps.map { Components.Schemas.App($0) }))))
    }

    func createApp(_ input: Operations.CreateApp.Input) async throws -> Operations.CreateApp.Output {
        _ = try principal()  // 401 before the body is read
        let body =
            switch input.body {
            case .json(let body): body
            }
        let app = try AppInput.check(
            appID: body.appID, platform: AppPlatform(rawValue: body.platform?.rawValue ?? "ios") ?? .ios,
            services: body.services?.map(\.rawValue), fingerprints: body.fingerprints, rulesFrom: body.rulesFrom,
            pointer: "")
        let labels = body.keyLabels?.additionalProperties
        try AppInput.checkKeyLabels(labels)
        let changed = try await change(
            AppChange(
                kind: .create(
                    team: input.path.team, appID: app.appID, services: app.services,
                    android: app.fingerprints, rulesFrom: app.rulesFrom), ifMatch: nil, keyLabels: labels))
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
        let services = try body.services.map { try AppInput.services($0.map(\.rawValue), field: "/services") }
        let fingerprints = try body.fingerprints.map { try AppInput.fingerprints($0, field: "/fingerprints") }
        let labels = body.keyLabels?.additionalProperties
        try AppInput.checkKeyLabels(labels)
        let changed = try await change(
            AppChange(
                kind: .update(
                    appID: input.path.appID, team: body.team, services: services,
                    fingerprints: fingerprints, rulesFrom: try AppInput.rulesFrom(body.rulesFrom)),
                ifMatch: input.headers.ifMatch, keyLabels: labels))
        return .ok(
            .init(
                headers: .init(eTag: ETag.of(changed.output.version)),
                body: .json(.init(changed.output, warnings: Self.serviceWarnings(changed.warnings, of: changed.output)))
            ))
    }

    func importPlaySigningKeys(
        _ input: Operations.ImportPlaySigningKeys.Input
    ) async throws -> Operations.ImportPlaySigningKeys.Output {
        _ = try principal()  // 401 before the body is read
        let snippet =
            switch input.body {
            case .json(let body): try SameJSON.convert(body, to: JSONValue.self)
            }
        let keys = try PlaySigningKeys.read(snippet, appID: input.path.appID)
        let changed = try await change(
            AppChange(kind: .playSigning(appID: input.path.appID, fingerprints: keys), ifMatch: input.headers.ifMatch))
        return .ok(
            .init(
                headers: .init(eTag: ETag.of(changed.output.version)),
                body: .json(.init(changed.output, warnings: Self.serviceWarnings(changed.warnings, of: changed.output)))
            ))
    }

    /// The change's warnings about this app: `G001` for the domains it reached whose grant lacks a
    /// service it asks for, and its signing-key warnings (`A020`–`A022`) there.
    static func serviceWarnings(_ warnings: [Finding], of app: AppRecord) -> [Finding] {
        var seen = Set<String>()
        return warnings.filter {
            (ServiceGrants.code == $0.code || AndroidKeyWarnings.codes.contains($0.code)) && $0.appID == app.appID
                && seen.insert($0.message).inserted
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
