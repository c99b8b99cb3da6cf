import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASASignedFile
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
        var aasa: [UInt8]?
        var android = body.assetlinks.map { Array($0.utf8) }
        switch body.source ?? .file {
        case .file:
            aasa = try Self.givenFile(body)
        case .origin, .cdn:
            guard principal.isAdmin else { throw ServiceError.forbidden("an import needs an admin token") }
            let host = try Names.domainHost(body.host)
            let fetched = try await fetchLimiter.run("import", host: host) {
                try await ImportSource.fetch(
                    host, cdn: body.source == .cdn, android: body.source == .origin && android == nil, fetcher: fetcher)
            }
            aasa = fetched.aasa
            android = android ?? fetched.android
        }
        let plan = try await ImportService(
            work: work, pipeline: pipeline, principal: principal, actor: actor(principal),
            maxRulesPerTeam: maxRulesPerTeamPerDomain, webRootBases: webRootBases
        ).run(
            .init(
                host: body.host, aasa: aasa, android: android, webauthn: body.webauthn.map { Array($0.utf8) },
                teamMap: ImportTeamMap(body.teamMap.additionalProperties), webRoots: body.webRoots ?? [],
                environment: body.environment, apply: body.apply == true, ifMatch: input.headers.ifMatch,
                publishReason: publishReason))
        var answer = try Self.importPlan(plan)
        answer.publish = try plan.published?.outcome.map(Self.publishResult)
        answer.publishError = plan.published?.failure
        return .ok(.init(body: .json(answer)))
    }

    /// The AASA given in the body: its text, or its bytes in base64 (the CMS-signed form); nil when
    /// only an assetlinks.json is given.
    static func givenFile(_ body: Components.Schemas.ImportRequest) throws -> [UInt8]? {
        if let encoded = body.aasaBase64 {
            guard body.aasa == nil, let data = Data(base64Encoded: encoded) else {
                throw ServiceError.invalid(
                    field: "/aasaBase64", rule: "base64", "the file's bytes in base64, and no aasa beside them")
            }
            return [UInt8](data)
        }
        guard let aasa = body.aasa else {
            guard body.assetlinks != nil else {
                throw ServiceError.invalid(
                    field: "/aasa", rule: "required",
                    "give the AASA's text, the assetlinks.json's, or a source to fetch")
            }
            return nil
        }
        return Array(aasa.utf8)
    }

    static func importPlan(_ plan: ImportService.Plan) throws -> Components.Schemas.ImportPlan {
        let variables = plan.reading?.substitutionVariables ?? []
        let apps: [Components.Schemas.ImportPlan.AppsPayloadPayload] = try plan.apps.map(importedApp)
        return .init(
            host: plan.host, applied: plan.applied, changed: plan.changed, stateTag: plan.stateTag,
            createsDomain: plan.createsDomain,
            caseSensitive: plan.reading?.caseSensitive, percentEncoded: plan.reading?.percentEncoded,
            substitutionVariables: variables.isEmpty
                ? nil
                : .init(
                    additionalProperties: Dictionary(
                        variables.map { ($0.name, $0.values) }, uniquingKeysWith: { a, _ in a })),
            apps: apps,
            grants: plan.grants.map { grant in
                .init(
                    team: grant.team, action: .init(rawValue: grant.action) ?? .keep,
                    domainWide: grant.prefixes.contains(where: \.domainWide),
                    pathPrefixes: grant.prefixes.map { .init(path: $0.path, rules: $0.rules) })
            },
            appOrder: plan.appOrder, notes: plan.notes,
            signer: plan.signed.flatMap { file in file.signer.map { .init(subject: $0, notAfter: file.signerNotAfter) }
            },
            diagnostics: plan.diagnostics.isEmpty ? nil : plan.diagnostics.map(Components.Schemas.Finding.init),
            proof: aasaProof(plan),
            androidProof: plan.androidProof.map { androidProof($0, sameBytes: plan.androidSameBytes) },
            relatedOrigins: plan.relatedOrigins.isEmpty ? nil : plan.relatedOrigins)
    }

    static func importedApp(_ app: ImportService.AppPlan) throws -> Components.Schemas.ImportPlan.AppsPayloadPayload {
        let rules: [Components.Schemas.ImportPlan.AppsPayloadPayload.RulesPayloadPayload] = try app.rules.map {
            .init(additionalProperties: try OpenAPIObjectContainer(json: $0))
        }
        return .init(
            appID: app.appID, platform: app.platform == .ios ? .ios : .android, team: app.team,
            services: app.services.compactMap { Components.Schemas.Service(rawValue: $0.rawValue) },
            fingerprints: app.fingerprints, action: app.created ? .create : .reuse,
            manifestDecides: app.manifestDecides ? true : nil, rules: rules)
    }

    /// With no AASA imported, its proof holds trivially: nothing was read, nothing is claimed.
    static func aasaProof(_ plan: ImportService.Plan) -> Components.Schemas.ImportPlan.ProofPayload {
        .init(
            holds: plan.proof?.holds ?? true, urlsChecked: plan.proof?.urlsChecked ?? 0, sameBytes: plan.sameBytes,
            elapsedMs: (plan.proofMilliseconds * 10).rounded() / 10,
            mismatches: (plan.proof?.mismatches ?? []).map {
                .init(url: $0.url, appID: $0.appID, before: $0.before.rawValue, after: $0.after.rawValue)
            })
    }

    static func androidProof(_ proof: AssetLinksProof, sameBytes: Bool)
        -> Components.Schemas.ImportPlan.AndroidProofPayload
    {
        .init(
            holds: proof.holds, urlsChecked: proof.urlsChecked, sameBytes: sameBytes,
            changes: AssetLinksDiff.textLines(json: proof.diff.jsonValue),
            mismatches: proof.mismatches.map {
                .init(url: $0.url, appID: $0.packageName, before: $0.before.rawValue, after: $0.after.rawValue)
            })
    }
}
