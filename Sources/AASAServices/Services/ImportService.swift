import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASASignedFile
import AASAStore
import Foundation
import NIOPosix

/// Moving a domain's existing AASA file in (`POST /v1/imports`, `aasactl import`): the file is read
/// into apps, grants and rules (`ImportReading`, `GrantProposal`), written in one transaction
/// through the API's own changes (domain, apps, grants, rules, order: each one's checks run), the
/// domain rendered and validated as any change's is, and the render compared with the file
/// (`ImportProof`). A file the registry cannot say exactly is refused, and nothing is written. A
/// plan is the same work rolled back.
package struct ImportService: Sendable {
    package let work: RequestWork
    package let pipeline: DomainChangePipeline
    package let principal: Principal
    package let actor: Actor
    package let maxRulesPerTeam: Int
    package let webRootBases: [String]

    package init(
        work: RequestWork, pipeline: DomainChangePipeline, principal: Principal, actor: Actor, maxRulesPerTeam: Int,
        webRootBases: [String]
    ) {
        self.work = work
        self.pipeline = pipeline
        self.principal = principal
        self.actor = actor
        self.maxRulesPerTeam = maxRulesPerTeam
        self.webRootBases = webRootBases
    }

    package struct Request: Sendable {
        package var host: String
        /// The AASA's bytes (the CMS-signed form too), and/or the assetlinks.json's.
        package var aasa: [UInt8]?
        package var android: [UInt8]?
        /// `/.well-known/webauthn`'s bytes, beside one of the other two (issue 52).
        package var webauthn: [UInt8]? = nil
        package var teamMap: ImportTeamMap
        package var webRoots: [String]
        /// The environment of a domain the import creates; an existing one must be in it.
        package var environment: String? = nil
        package var apply: Bool
        /// The plan's `stateTag`: the apply is refused (412) if the state changed since.
        package var ifMatch: String? = nil
        /// Publish the domain once the import is committed, with this reason (nil: only the
        /// domain's auto-publish, when the import changed it).
        package var publishReason: String? = nil

        package init(
            host: String, aasa: [UInt8]? = nil, android: [UInt8]? = nil, webauthn: [UInt8]? = nil,
            teamMap: ImportTeamMap, webRoots: [String],
            environment: String? = nil, apply: Bool, ifMatch: String? = nil, publishReason: String? = nil
        ) {
            self.publishReason = publishReason
            self.host = host
            self.aasa = aasa
            self.android = android
            self.webauthn = webauthn
            self.teamMap = teamMap
            self.webRoots = webRoots
            self.environment = environment
            self.apply = apply
            self.ifMatch = ifMatch
        }
    }

    package struct AppPlan: Sendable {
        package var appID: String
        package var platform: AppPlatform
        package var team: String
        package var services: [AppService]
        package var fingerprints: [String]?
        package var created: Bool
        package var rules: [JSONValue]
        package var manifestDecides: Bool
    }

    package struct GrantPlan: Sendable {
        package var team: String
        package var prefixes: [GrantProposal.Prefix]
        /// `create`, `widen` (an existing grant did not cover the rules) or `keep`.
        package var action: String
    }

    package struct Plan: Sendable {
        package var host: String
        package var applied: Bool
        package var changed: Bool
        /// The state the plan was made against (`If-Match` for the apply).
        package var stateTag: String
        package var createsDomain: Bool
        package var reading: ImportReading?
        package var notes: [String]
        package var apps: [AppPlan]
        package var grants: [GrantPlan]
        package var appOrder: [String]
        package var diagnostics: [Finding]
        package var proof: ImportProof?
        package var sameBytes: Bool
        package var androidProof: AssetLinksProof?
        package var androidSameBytes: Bool
        package var proofMilliseconds: Double
        /// The CMS-signed form's signer (named, not trusted), when the file came signed.
        package var signed: SignedFile?
        /// What the publish after the commit did, when one was asked or the domain auto-publishes.
        package var published: PublishAfterCommit.Result?
        /// The related origins the imported `/.well-known/webauthn` lists (empty without one); each
        /// the domain lacked is added, and the domain then lists exactly these.
        package var relatedOrigins: [String] = []
    }

    package func run(_ request: Request) async throws -> Plan {
        guard principal.isAdmin else { throw ServiceError.forbidden("an import needs an admin token") }
        let host = try Names.domainHost(request.host)
        var aasa = request.aasa
        var signed: SignedFile?
        if let bytes = aasa, SignedFile.looksSigned(bytes) {
            do { signed = try SignedFile.unwrap(bytes) } catch {
                throw ServiceError.invalid(field: "/aasa", rule: "cms", "\(error)")
            }
            aasa = signed?.content ?? []
        }
        let files = try ImportFiles(aasa: aasa, android: request.android, host: host, map: request.teamMap)
        let origins = try request.webauthn.map(Self.relatedOrigins) ?? []
        try Self.checkInterleaving(files)
        var plan = try await work.transaction(rollingBack: !request.apply) { session in
            try await importLocked(
                host: host, request: request, files: files, origins: origins, session: session)
        }
        plan.signed = signed
        // The import is committed: its publish (asked, or the domain's auto-publish when it changed)
        // is an outcome of the plan, never an error hiding the commit.
        if plan.applied && (request.publishReason != nil || plan.changed) {
            plan.published = await PublishAfterCommit(publisher: pipeline.publisher).run(
                host: plan.host, reason: request.publishReason, after: "import", actor: actor, logger: work.logger,
                authorize: PublishRights.check(principal))
        }
        return plan
    }

    /// Two teams whose rules reach each other's: a prefix one team's grant needs (short of the whole
    /// domain, which the plan names) covers another team's rule, so no split of the path space
    /// between them holds. Refused (422 naming the app in the file) rather than granted overlapping.
    package static func checkInterleaving(_ files: ImportFiles) throws {
        let teams = files.apps.map(\.team).uniqued()
        guard teams.count > 1 else { return }
        var rulesByTeam: [String: [JSONValue]] = [:]
        for app in files.apps { rulesByTeam[app.team, default: []] += app.rules }
        var errors: [FieldError] = []
        for clash in GrantProposal.interleaving(teams.map { ($0, rulesByTeam[$0] ?? []) }) {
            let app = files.apps.first { $0.team == clash.reached && $0.rules.contains(clash.rule) }
            let pattern = clash.rule.objectValue?["/"]?.stringValue ?? "(any path)"
            errors.append(
                FieldError(
                    field: app?.field ?? "/teamMap", rule: "interleaving",
                    message: "team \(clash.team)'s rules need the prefix \(clash.prefix), which reaches team "
                        + "\(clash.reached)'s rule \(pattern): no grant split keeps each team to its own rules; map "
                        + "both to one team, or split the file"))
        }
        guard errors.isEmpty else { throw ServiceError.invalid(Array(errors.prefix(20))) }
    }

    /// The origins an imported `/.well-known/webauthn` lists, each as a browser serializes it, or
    /// 422 naming the first that today's checks refuse (https, unique, at most five labels).
    static func relatedOrigins(_ bytes: [UInt8]) throws -> [String] {
        guard let listed = RelatedOrigins.parse(bytes) else {
            throw ServiceError.invalid(
                field: "/webauthn", rule: "webauthn-file", "not a /.well-known/webauthn file ({\"origins\": [...]})")
        }
        let checked = RelatedOrigins.check(listed)
        guard checked.problems.isEmpty else {
            throw ServiceError.invalid(
                checked.problems.prefix(20).map {
                    FieldError(field: "/webauthn/origins/\($0.index)", rule: $0.rule, message: $0.message)
                })
        }
        return checked.origins
    }

    /// Each origin the file lists that the domain lacks, added as an admin's (`RelatedOriginChange`);
    /// refused when the domain lists one the file does not (the registry could not serve the file).
    private func importOrigins(_ origins: [String], domain: DomainRecord, session: DBSession, writes: inout Int)
        async throws
    {
        let present = try await session.relatedOrigins(domainID: domain.id).map(\.origin)
        if let extra = present.first(where: { !origins.contains($0) }) {
            throw ServiceError.invalid(
                field: "/webauthn", rule: "proof",
                "\(domain.host) lists the related origin \(extra), which this file does not: remove it first, or "
                    + "add it to the file")
        }
        for origin in origins where !present.contains(origin) {
            writes +=
                (try await RelatedOriginChange(host: domain.host, kind: .add(origin), ifMatch: nil)
                .applyWithin(session, principal: principal, actor: actor, auditPrefix: "import.")).audit.count
        }
    }

    private func importLocked(
        host: String, request: Request, files: ImportFiles, origins: [String], session: DBSession
    ) async throws -> Plan {
        // Each change appends its own audit (under `import.`) as it is applied; the import counts
        // them, to know whether it changed anything.
        var writes = 0
        let reading = files.aasa?.reading

        // The domain: reused when it exists, created with the file's settings otherwise. Locked
        // first, so the state tag below stays true until the commit.
        var domain = try await session.domain(host: host, forUpdate: true)
        let stateTag = try await ImportStateTag.current(host: host, files: files, session: session)
        try ETag.check(request.ifMatch, current: stateTag)
        let createsDomain = domain == nil
        if domain == nil {
            let settings = try DomainSettings(
                host: host, aliases: nil,
                variables: Dictionary(
                    (reading?.substitutionVariables ?? []).map { ($0.name, $0.values) }, uniquingKeysWith: { a, _ in a }
                ),
                defaults: DomainDefaults(
                    caseSensitive: reading?.caseSensitive, percentEncoded: reading?.percentEncoded),
                webRoots: request.webRoots, autoPublish: nil, legacyRootPath: nil, current: nil,
                bases: webRootBases, environment: request.environment)
            let created = try await DomainSettingsChange(kind: .create(host: host, settings: settings), ifMatch: nil)
                .applyWithin(session, principal: principal, actor: actor, auditPrefix: "import.")
            writes += created.audit.count
            domain = created.output
        }
        guard let domain else { throw ServiceError.notFound("the domain was deleted") }
        if let wanted = request.environment, wanted != domain.environment {
            throw ServiceError.invalid(
                field: "/environment", rule: "environment",
                "\(host) is in environment \(domain.environment), not \(wanted); move it first, or leave this out")
        }

        // Each team read once, for the apps and then for the grants.
        var teams: [String: TeamRecord] = [:]
        for name in files.apps.map(\.team).uniqued() { teams[name] = try await session.team(named: name) }
        let (apps, records) = try await registerApps(files.apps, teams: teams, session: session, writes: &writes)
        let grants = try await grant(apps, teams: teams, on: domain, session: session, writes: &writes)

        // Rules, each app's list in file order; an identical stored rule keeps its ID, so a second
        // import of the same file writes nothing.
        for app in apps where !app.rules.isEmpty || app.manifestDecides {
            guard let appRecord = records[app.appID] else { continue }
            let current = try await session.ruleSet(domainID: domain.id, app: appRecord)
            let rules = ManifestRequest.resolve(
                app.rules.map { ManifestRequest.ManifestRule(id: nil, component: $0) }, current: current.rules)
            guard rules != current.rules || app.manifestDecides != current.manifestDecides else { continue }
            writes +=
                (try await RuleSetChange(
                    host: domain.host, appID: app.appID, ifMatch: nil, action: "rules.replace",
                    maxRulesPerTeam: maxRulesPerTeam, edit: .set(rules),
                    manifestDecides: app.manifestDecides
                ).applyWithin(session, principal: principal, actor: actor, auditPrefix: "import.")).audit.count
        }

        // The order each platform's file tries the apps in: the files' own.
        let order = files.apps.filter { $0.services.contains(.applinks) || $0.platform == .android }.map(\.appID)
        let locked = try await session.domain(id: domain.id, forUpdate: true) ?? domain
        if !order.isEmpty && Array(locked.appOrder.filter(order.contains).prefix(order.count)) != order {
            writes +=
                (try await OrderChange(
                    host: domain.host, apps: order + locked.appOrder.filter { !order.contains($0) }, ifMatch: nil
                ).applyWithin(session, principal: principal, actor: actor, auditPrefix: "import.")).audit.count
        }

        if request.webauthn != nil {
            try await importOrigins(origins, domain: domain, session: session, writes: &writes)
        }

        // The proofs, on the renders every publish would serve.
        let current = try await session.domain(id: domain.id, forUpdate: true) ?? domain
        let rendered = try await pipeline.validate(session, domain: current)
        let started = ContinuousClock.now
        // Seconds of matching for a big file: on NIO's thread pool, as validation is, not on the
        // concurrency pool that answers every other request.
        let (renderedDocument, renderedAndroid) = (rendered.document, rendered.android.document)
        let (proof, androidProof) = try await NIOThreadPool.singleton.runIfActive {
            let proof = files.aasa.map { ImportProof(original: $0.document, rendered: renderedDocument, host: host) }
            let android = files.android.map {
                AssetLinksProof(original: $0.document, rendered: renderedAndroid, host: host)
            }
            return (proof, android)
        }
        let proofTime = ContinuousClock.now - started
        if let proof, !proof.holds { throw Self.refusal(proof) }
        if let androidProof, !androidProof.holds { throw Self.refusal(androidProof) }
        try await pipeline.checkPolicies(
            rendered, action: "import.apply", domain: current, actor: actor, session: session)
        let changed = writes > 0
        if changed {
            var imported: [JSONValue] = []
            if files.aasa != nil { imported.append(.string("aasa")) }
            if files.android != nil { imported.append(.string("assetlinks")) }
            if request.webauthn != nil { imported.append(.string("webauthn")) }
            try await session.appendAudit(
                AuditEntry(
                    action: "import.apply", entityType: "domain", entityID: host, domain: host,
                    after: .object([
                        "apps": .number(String(apps.count)),
                        "appsCreated": .number(String(apps.filter(\.created).count)),
                        "rules": .number(String(apps.reduce(0) { $0 + $1.rules.count })),
                        "teams": .array(grants.map { .string($0.team) }),
                        "urlsChecked": .number(String((proof?.urlsChecked ?? 0) + (androidProof?.urlsChecked ?? 0))),
                        "files": .array(imported),
                        "createdDomain": .bool(createsDomain),
                    ])
                ).record(by: actor))
        }
        return Plan(
            host: host, applied: request.apply, changed: changed, stateTag: stateTag, createsDomain: createsDomain,
            reading: reading,
            notes: (reading?.notes ?? []) + (files.android?.reading.notes ?? []), apps: apps, grants: grants,
            appOrder: order, diagnostics: files.diagnostics, proof: proof,
            sameBytes: files.aasa.map { rendered.bytes == AASARenderer.render($0.document) } ?? true,
            androidProof: androidProof,
            androidSameBytes: files.android.map { rendered.android.bytes == $0.document.rendered() } ?? true,
            proofMilliseconds: proofTime.milliseconds, signed: nil, relatedOrigins: origins)
    }

    /// Each app registered to its team (`AppChange`, with its checks), or reused when the team
    /// already has it as the files name it. One that another team owns, or that lacks a service or
    /// a key the file lists, is refused rather than changed: that would change other domains too.
    private func registerApps(
        _ wanted: [ImportFiles.App], teams: [String: TeamRecord], session: DBSession,
        writes: inout Int
    ) async throws -> ([AppPlan], [String: AppRecord]) {
        var apps: [AppPlan] = []
        var records: [String: AppRecord] = [:]
        var errors: [FieldError] = []
        for app in wanted {
            var plan = AppPlan(
                appID: app.appID, platform: app.platform, team: app.team, services: app.services,
                fingerprints: app.fingerprints, created: false, rules: app.rules, manifestDecides: app.manifestDecides)
            if let existing = try await session.app(appID: app.appID, forUpdate: true) {
                if let problem = Self.reuseProblem(existing, wanted: app) {
                    errors.append(FieldError(field: app.field, rule: problem.rule, message: problem.message))
                }
                apps.append(plan)
                records[app.appID] = existing
                continue
            }
            guard teams[app.team] != nil else {
                errors.append(FieldError(field: "/teamMap", rule: "exists", message: "there is no team \(app.team)"))
                continue
            }
            do {
                let created = try await AppChange(
                    kind: .create(team: app.team, appID: app.appID, services: app.services, android: app.fingerprints),
                    ifMatch: nil
                ).applyWithin(session, principal: principal, actor: actor, auditPrefix: "import.")
                writes += created.audit.count
                records[app.appID] = created.output
            } catch let problem as ServiceError where problem.kind == .forbidden || problem.kind == .invalid {
                errors.append(FieldError(field: app.field, rule: "app", message: problem.detail ?? problem.title))
                continue
            }
            plan.created = true
            apps.append(plan)
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors.uniqued()) }
        return (apps, records)
    }

    /// Why a registered app cannot stand for the one the file names, or nil.
    package static func reuseProblem(_ existing: AppRecord, wanted app: ImportFiles.App) -> (
        rule: String, message: String
    )? {
        if existing.teamName != app.team {
            return ("owned-by-another-team", "\(app.appID) is registered to team \(existing.teamName), not \(app.team)")
        }
        if existing.platform != app.platform {
            return ("platform", "\(app.appID) is registered as an \(existing.platform.rawValue) app")
        }
        if let missing = app.services.first(where: { !existing.services.contains($0) }) {
            return (
                "services",
                "\(app.appID) is registered without the \(missing.rawValue) service the file lists it for; add it to "
                    + "the app first"
            )
        }
        if let fingerprints = app.fingerprints, Set(fingerprints) != Set(existing.fingerprints) {
            return (
                "fingerprints",
                "\(app.appID) is registered with other signing keys than the file lists; make them the same first"
            )
        }
        return nil
    }

    /// Each team's proposed grant (`GrantProposal`), joined with what it holds already.
    private func grant(
        _ apps: [AppPlan], teams: [String: TeamRecord], on domain: DomainRecord, session: DBSession,
        writes: inout Int
    ) async throws -> [GrantPlan] {
        var grants: [GrantPlan] = []
        for team in apps.map(\.team).uniqued() {
            let own = apps.filter { $0.team == team }
            // A statement its manifest decides may open any path: it needs the whole domain.
            let claims = own.flatMap(\.rules) + own.filter(\.manifestDecides).map { _ in JSONValue.object([:]) }
            let prefixes = GrantProposal.propose(rules: claims)
            let services = AppService.allCases.filter { service in
                service != .applinks && own.contains { $0.services.contains(service) }
            }
            guard let teamRecord = teams[team] else { continue }
            let held = try await session.grant(domainID: domain.id, teamID: teamRecord.id)
            let wanted = prefixes.map(\.path)
            let covered =
                held.map { grant in
                    wanted.allSatisfy { PathGrant.covers(grant.pathPrefixes, pathPattern: $0) }
                        && services.allSatisfy(grant.services.contains)
                } ?? false
            let action = held == nil ? "create" : covered ? "keep" : "widen"
            if !covered && (!wanted.isEmpty || !services.isEmpty) {
                let union = ((held?.pathPrefixes ?? []) + (wanted.isEmpty ? ["/"] : wanted)).uniqued()
                writes +=
                    (try await GrantChange(
                        host: domain.host, team: team,
                        kind: .put(union, services: ((held?.services ?? []) + services).uniqued()), ifMatch: nil
                    ).applyWithin(session, principal: principal, actor: actor, auditPrefix: "import.")).audit.count
            }
            grants.append(GrantPlan(team: team, prefixes: prefixes, action: action))
        }
        return grants
    }

    /// A proof that failed, as the 422 that names why.
    package static func refusal(_ proof: ImportProof) -> ServiceError {
        var errors: [FieldError] = proof.mismatches.prefix(20).map {
            FieldError(
                field: "/aasa", rule: "proof",
                message: "\($0.appID) on \($0.url): the file says \($0.before.rawValue), the registry would say "
                    + "\($0.after.rawValue)")
        }
        if proof.appOrderChanged {
            errors.append(FieldError(field: "/aasa", rule: "proof", message: "the order of the apps would change"))
        }
        for change in proof.serviceChanges {
            errors.append(FieldError(field: "/aasa", rule: "proof", message: "a service list would change: \(change)"))
        }
        for app in proof.appsAdded + proof.appsRemoved {
            errors.append(FieldError(field: "/aasa", rule: "proof", message: "\(app) would be listed differently"))
        }
        return ServiceError.invalid(
            errors,
            detail: "the registry cannot say exactly what this file says (\(proof.mismatches.count) decision(s) of "
                + "\(proof.urlsChecked) URL(s) differ); nothing was written")
    }

    /// An assetlinks.json proof that failed, as the 422 that names why.
    package static func refusal(_ proof: AssetLinksProof) -> ServiceError {
        var errors: [FieldError] = proof.mismatches.prefix(20).map {
            FieldError(
                field: "/assetlinks", rule: "proof",
                message: "\($0.packageName) on \($0.url): the file says \($0.before.rawValue), the registry would say "
                    + "\($0.after.rawValue)")
        }
        for line in AssetLinksDiff.textLines(json: proof.diff.jsonValue).prefix(20) {
            errors.append(
                FieldError(field: "/assetlinks", rule: "proof", message: "the rendering would differ: \(line)"))
        }
        return ServiceError.invalid(
            errors,
            detail: "the registry cannot say exactly what this assetlinks.json says; nothing was written")
    }
}
