import AASAAPI
import AASAModel
import Foundation
import OpenAPIRuntime

extension APIImplementation {
    func importDomain(_ input: Operations.ImportDomain.Input) async throws -> Operations.ImportDomain.Output {
        let principal = try principal()
        let body =
            switch input.body {
            case .json(let body): body
            }
        let publishReason: String? =
            if body.publish == true {
                try Self.reason(.init(reason: body.reason ?? ""))
            } else { nil }
        let bytes: [UInt8]
        switch body.source ?? .file {
        case .file:
            bytes = try Self.givenFile(body)
        case .origin, .cdn:
            guard principal.isAdmin else { throw ServiceError.forbidden("an import needs an admin token") }
            let host = try Names.domainHost(body.host)
            bytes = try await fetchLimiter.run("import", host: host) {
                try await ImportSource.fetch(host, cdn: body.source == .cdn, fetcher: fetcher)
            }
        }
        let plan = try await ImportService(
            work: work, pipeline: pipeline, principal: principal, actor: actor(principal),
            maxRulesPerTeam: maxRulesPerTeamPerDomain, webRootBases: webRootBases
        ).run(
            .init(
                host: body.host, bytes: bytes,
                teamMap: ImportTeamMap(body.teamMap.additionalProperties), webRoots: body.webRoots ?? [],
                apply: body.apply == true))
        var answer = try Self.importPlan(plan)
        if plan.applied, let publishReason {
            answer.publish = Self.publishResult(
                try await publisher.publish(
                    host: plan.host, reason: publishReason, source: .draft, actor: actor(principal), logger: logger,
                    authorize: PublishRights.check(principal)))
        }
        return .ok(.init(body: .json(answer)))
    }

    /// The file given in the body: its text, or its bytes in base64 (the CMS-signed form).
    static func givenFile(_ body: Components.Schemas.ImportRequest) throws -> [UInt8] {
        if let encoded = body.aasaBase64 {
            guard body.aasa == nil, let data = Data(base64Encoded: encoded) else {
                throw ServiceError.invalid(
                    field: "/aasaBase64", rule: "base64", "the file's bytes in base64, and no aasa beside them")
            }
            return [UInt8](data)
        }
        guard let aasa = body.aasa else {
            throw ServiceError.invalid(field: "/aasa", rule: "required", "give the file's text, or a source to fetch")
        }
        return Array(aasa.utf8)
    }

    static func importPlan(_ plan: ImportService.Plan) throws -> Components.Schemas.ImportPlan {
        .init(
            host: plan.host, applied: plan.applied, changed: plan.changed, createsDomain: plan.createsDomain,
            caseSensitive: plan.reading.caseSensitive, percentEncoded: plan.reading.percentEncoded,
            substitutionVariables: plan.reading.substitutionVariables.isEmpty
                ? nil
                : .init(
                    additionalProperties: Dictionary(
                        plan.reading.substitutionVariables.map { ($0.name, $0.values) }, uniquingKeysWith: { a, _ in a }
                    )),
            apps: try plan.apps.map { app in
                .init(
                    appID: app.appID, team: app.team,
                    services: app.services.compactMap { Components.Schemas.Service(rawValue: $0.rawValue) },
                    action: app.created ? .create : .reuse,
                    rules: try app.rules.map { .init(additionalProperties: try OpenAPIObjectContainer(json: $0)) })
            },
            grants: plan.grants.map { grant in
                .init(
                    team: grant.team, action: .init(rawValue: grant.action) ?? .keep,
                    domainWide: grant.prefixes.contains(where: \.domainWide),
                    pathPrefixes: grant.prefixes.map { .init(path: $0.path, rules: $0.rules) })
            },
            appOrder: plan.appOrder, notes: plan.reading.notes,
            signer: plan.signed.flatMap { file in file.signer.map { .init(subject: $0, notAfter: file.signerNotAfter) }
            },
            diagnostics: plan.diagnostics.isEmpty ? nil : plan.diagnostics.map(Components.Schemas.Finding.init),
            proof: .init(
                holds: plan.proof.holds, urlsChecked: plan.proof.urlsChecked, sameBytes: plan.sameBytes,
                elapsedMs: (plan.proofMilliseconds * 10).rounded() / 10,
                mismatches: plan.proof.mismatches.map {
                    .init(url: $0.url, appID: $0.appID, before: $0.before.rawValue, after: $0.after.rawValue)
                }))
    }
}
