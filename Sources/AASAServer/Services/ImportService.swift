import AASAModel
import AASAStore
import Foundation
import NIOPosix

/// Moving a domain's existing AASA file in (`POST /v1/imports`, `aasactl import`): the file is read
/// into apps, grants and rules (`ImportReading`, `GrantProposal`), written in one transaction
/// through the API's own changes (domain, apps, grants, rules, order: each one's checks run), the
/// domain rendered and validated as any change's is, and the render compared with the file
/// (`ImportProof`). A file the registry cannot say exactly is refused, and nothing is written. A
/// plan is the same work rolled back.
struct ImportService: Sendable {
    let work: RequestWork
    let pipeline: DomainChangePipeline
    let principal: Principal
    let actor: Actor
    let maxRulesPerTeam: Int
    let webRootBases: [String]

    /// Apple fetches at most 128 KB; a larger file is not a file Apple has ever read.
    static let maxBytes = 128 * 1024

    struct Request: Sendable {
        var host: String
        var bytes: [UInt8]
        var teamMap: ImportTeamMap
        var webRoots: [String]
        var apply: Bool
    }

    struct AppPlan: Sendable {
        var appID: String
        var team: String
        var services: [AppService]
        var created: Bool
        var rules: [JSONValue]
    }

    struct GrantPlan: Sendable {
        var team: String
        var prefixes: [GrantProposal.Prefix]
        /// `create`, `widen` (an existing grant did not cover the rules) or `keep`.
        var action: String
    }

    struct Plan: Sendable {
        var host: String
        var applied: Bool
        var changed: Bool
        var createsDomain: Bool
        var reading: ImportReading
        var apps: [AppPlan]
        var grants: [GrantPlan]
        var appOrder: [String]
        var diagnostics: [Finding]
        var proof: ImportProof
        var sameBytes: Bool
        var proofMilliseconds: Double
        /// The CMS-signed form's signer (named, not trusted), when the file came signed.
        var signed: SignedFile?
    }

    func run(_ request: Request) async throws -> Plan {
        guard principal.isAdmin else { throw ServiceError.forbidden("an import needs an admin token") }
        let host = try Names.domainHost(request.host)
        var bytes = request.bytes
        var signed: SignedFile?
        if SignedFile.looksSigned(bytes) {
            do { signed = try SignedFile.unwrap(bytes) } catch {
                throw ServiceError.invalid(field: "/aasa", rule: "cms", "\(error)")
            }
            bytes = signed?.content ?? []
        }
        let (document, diagnostics) = try Self.read(bytes, host: host)
        let reading = ImportReading(document)
        let teams = try Self.teams(of: reading, in: document, map: request.teamMap)
        var plan = try await work.transaction(rollingBack: !request.apply) { session in
            try await importLocked(
                host: host, request: request, document: document, reading: reading, teams: teams,
                diagnostics: diagnostics, session: session)
        }
        plan.signed = signed
        return plan
    }

    /// The file as Apple would read it, refused (422 naming where in it) when Apple would not, or
    /// when it is larger than Apple reads.
    static func read(_ bytes: [UInt8], host: String) throws -> (AASADocument, [Finding]) {
        guard bytes.count <= maxBytes else {
            throw ServiceError.invalid(
                field: "/aasa", rule: "size",
                "the file is \(bytes.count) bytes; Apple reads at most \(maxBytes), so no device has ever read this one"
            )
        }
        let parsed = AASAParser.parse(bytes)
        var diagnostics = parsed.diagnostics
        if let document = parsed.document {
            diagnostics += AASAValidator.validate(
                document, servedByteCount: bytes.count, options: .init(analyzeRules: false, host: host))
        }
        let errors = diagnostics.filter { $0.severity == .error }
        guard let document = parsed.document, errors.isEmpty else {
            let fields = errors.map {
                FieldError(field: "/aasa" + $0.path.description, rule: $0.code.rawValue, message: $0.message)
            }
            throw ServiceError.invalid(
                fields.isEmpty
                    ? [FieldError(field: "/aasa", rule: "json", message: "the file is not an AASA document")] : fields)
        }
        let warnings = diagnostics.filter { $0.severity == .warning }.map {
            Finding(code: $0.code.rawValue, path: $0.path.description, message: $0.message)
        }
        return (document, warnings)
    }

    /// Each app's team by the map, refused (422 naming the app's place in the file) for an app no
    /// key claims.
    static func teams(of reading: ImportReading, in document: AASADocument, map: ImportTeamMap) throws -> [String:
        String]
    {
        guard !map.entries.isEmpty else {
            throw ServiceError.invalid(
                field: "/teamMap", rule: "required", "name a team for each Apple Team ID (or app ID) in the file")
        }
        var teams: [String: String] = [:]
        var errors: [FieldError] = []
        for app in reading.apps {
            if let team = map.team(for: app.appID) {
                teams[app.appID] = team
            } else {
                errors.append(
                    FieldError(
                        field: "/aasa" + pointer(of: app.appID, in: document), rule: "team-map",
                        message: "no team in the map claims \(app.appID); add its Team ID or the app ID to the map"))
            }
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }
        return teams
    }

    /// Where an app ID first stands in the file, as a JSON pointer.
    static func pointer(of appID: String, in document: AASADocument) -> String {
        for (i, entry) in (document.applinks?.details ?? []).enumerated() {
            if let j = entry.appIDs?.firstIndex(of: appID) { return "/applinks/details/\(i)/appIDs/\(j)" }
            if entry.appID == appID { return "/applinks/details/\(i)/appID" }
        }
        let lists: [(String, [String]?)] = [
            ("webcredentials", document.webcredentials?.apps), ("appclips", document.appclips?.apps),
            ("activitycontinuation", document.activitycontinuation?.apps),
        ]
        for (name, apps) in lists {
            if let j = apps?.firstIndex(of: appID) { return "/\(name)/apps/\(j)" }
        }
        return ""
    }

    private func importLocked(
        host: String, request: Request, document: AASADocument, reading: ImportReading, teams: [String: String],
        diagnostics: [Finding], session: DBSession
    ) async throws -> Plan {
        var audit: [AuditEntry] = []
        func record<Output>(_ applied: Applied<Output>) {
            audit += applied.audit.map { entry in
                var entry = entry
                entry.action = "import." + entry.action
                return entry
            }
        }

        // The domain: reused when it exists, created with the file's settings otherwise.
        var domain = try await session.domain(host: host, forUpdate: true)
        let createsDomain = domain == nil
        if domain == nil {
            let settings = try DomainSettings(
                host: host, aliases: nil,
                variables: Dictionary(
                    reading.substitutionVariables.map { ($0.name, $0.values) }, uniquingKeysWith: { a, _ in a }),
                defaults: DomainDefaults(caseSensitive: reading.caseSensitive, percentEncoded: reading.percentEncoded),
                webRoots: request.webRoots, autoPublish: nil, legacyRootPath: nil, current: nil,
                bases: webRootBases)
            let created = try await DomainSettingsChange(kind: .create(host: host, settings: settings), ifMatch: nil)
                .applyWithin(session, principal: principal)
            record(created)
            domain = created.output
        }
        guard let domain else { throw ServiceError.notFound("the domain was deleted") }

        // Each team read once, for the apps and then for the grants.
        var teamRecords: [String: TeamRecord] = [:]
        for team in Set(teams.values) { teamRecords[team] = try await session.team(named: team) }

        // Apps: registered to their team, or reused when the team already has them.
        var apps: [AppPlan] = []
        var records: [String: AppRecord] = [:]
        var errors: [FieldError] = []
        for app in reading.apps {
            let team = teams[app.appID] ?? ""
            let field = "/aasa" + Self.pointer(of: app.appID, in: document)
            if let existing = try await session.app(appID: app.appID, forUpdate: true) {
                if existing.teamName != team {
                    errors.append(
                        FieldError(
                            field: field, rule: "owned-by-another-team",
                            message: "\(app.appID) is registered to team \(existing.teamName), not \(team)"))
                } else if let missing = app.services.first(where: { !existing.services.contains($0) }) {
                    errors.append(
                        FieldError(
                            field: field, rule: "services",
                            message: "\(app.appID) is registered without the \(missing.rawValue) service the file "
                                + "lists it for; add it to the app first"))
                }
                apps.append(
                    AppPlan(appID: app.appID, team: team, services: app.services, created: false, rules: app.rules))
                records[app.appID] = existing
                continue
            }
            guard teamRecords[team] != nil else {
                errors.append(FieldError(field: "/teamMap", rule: "exists", message: "there is no team \(team)"))
                continue
            }
            do {
                let created = try await AppChange(
                    kind: .create(team: team, appID: app.appID, services: app.services, android: nil), ifMatch: nil
                ).applyWithin(session, principal: principal)
                record(created)
                records[app.appID] = created.output
            } catch let problem as ServiceError where problem.kind == .forbidden || problem.kind == .invalid {
                errors.append(
                    FieldError(field: field, rule: "app", message: problem.detail ?? problem.title))
                continue
            }
            apps.append(AppPlan(appID: app.appID, team: team, services: app.services, created: true, rules: app.rules))
        }
        guard errors.isEmpty else { throw ServiceError.invalid(Self.ordered(errors)) }

        // Grants: each team's proposal, joined with what it holds already.
        var grants: [GrantPlan] = []
        for team in Self.ordered(apps.map(\.team)) {
            let own = apps.filter { $0.team == team }
            let prefixes = GrantProposal.propose(rules: own.flatMap(\.rules))
            let services = AppService.allCases.filter { service in
                service != .applinks && own.contains { $0.services.contains(service) }
            }
            guard let teamRecord = teamRecords[team] else { continue }
            let held = try await session.grant(domainID: domain.id, teamID: teamRecord.id)
            let wanted = prefixes.map(\.path)
            let covered =
                held.map { grant in
                    wanted.allSatisfy { PathGrant.covers(grant.pathPrefixes, pathPattern: $0) }
                        && services.allSatisfy(grant.services.contains)
                } ?? false
            let action = held == nil ? "create" : covered ? "keep" : "widen"
            if !covered && (!wanted.isEmpty || !services.isEmpty) {
                let union = Self.ordered((held?.pathPrefixes ?? []) + (wanted.isEmpty ? ["/"] : wanted))
                record(
                    try await GrantChange(
                        host: domain.host, team: team,
                        kind: .put(union, services: Self.ordered((held?.services ?? []) + services)), ifMatch: nil
                    ).applyWithin(session, principal: principal))
            }
            grants.append(GrantPlan(team: team, prefixes: prefixes, action: action))
        }

        // Rules, each app's list in file order; an identical stored rule keeps its ID, so a second
        // import of the same file writes nothing.
        for app in apps where !app.rules.isEmpty {
            guard let appRecord = records[app.appID] else { continue }
            let current = try await session.ruleSet(domainID: domain.id, app: appRecord)
            let rules = ManifestRequest.resolve(
                app.rules.map { ManifestRequest.ManifestRule(id: nil, component: $0) }, current: current.rules)
            guard rules != current.rules else { continue }
            record(
                try await RuleSetChange(
                    host: domain.host, appID: app.appID, ifMatch: nil, action: "rules.replace",
                    maxRulesPerTeam: maxRulesPerTeam, edit: { _ in rules }, bodyField: { _, _ in nil }
                ).applyWithin(session, principal: principal))
        }

        // The order Apple tries the apps in: the file's.
        let order = reading.apps.filter { $0.services.contains(.applinks) }.map(\.appID)
        let locked = try await session.domain(id: domain.id, forUpdate: true) ?? domain
        if !order.isEmpty && Array(locked.appOrder.filter(order.contains).prefix(order.count)) != order {
            record(
                try await OrderChange(
                    host: domain.host, apps: order + locked.appOrder.filter { !order.contains($0) }, ifMatch: nil
                ).applyWithin(session, principal: principal))
        }

        // The proof, on the render every publish would serve.
        let current = try await session.domain(id: domain.id, forUpdate: true) ?? domain
        let rendered = try await pipeline.validate(session, domain: current)
        let started = ContinuousClock.now
        // Seconds of matching for a big file: on NIO's thread pool, as validation is, not on the
        // concurrency pool that answers every other request.
        let renderedDocument = rendered.document
        let proof = try await NIOThreadPool.singleton.runIfActive {
            ImportProof(original: document, rendered: renderedDocument, host: host)
        }
        let proofTime = ContinuousClock.now - started
        guard proof.holds else { throw Self.refusal(proof) }
        try await pipeline.checkPolicies(
            PolicyCandidate(
                stage: .draft, action: "import.apply", domain: current, document: rendered, bytes: rendered.bytes,
                actor: actor),
            session: session)
        let changed = !audit.isEmpty
        if changed {
            audit.append(
                AuditEntry(
                    action: "import.apply", entityType: "domain", entityID: host, domain: host,
                    after: .object([
                        "apps": .number(String(apps.count)),
                        "appsCreated": .number(String(apps.filter(\.created).count)),
                        "rules": .number(String(apps.reduce(0) { $0 + $1.rules.count })),
                        "teams": .array(grants.map { .string($0.team) }),
                        "urlsChecked": .number(String(proof.urlsChecked)),
                        "createdDomain": .bool(createsDomain),
                    ])))
            for entry in audit { try await session.appendAudit(entry.record(by: actor)) }
        }
        return Plan(
            host: host, applied: request.apply, changed: changed, createsDomain: createsDomain, reading: reading,
            apps: apps, grants: grants, appOrder: order, diagnostics: diagnostics, proof: proof,
            sameBytes: rendered.bytes == AASARenderer.render(document),
            proofMilliseconds: proofTime.milliseconds, signed: nil)
    }

    /// A proof that failed, as the 422 that names why.
    static func refusal(_ proof: ImportProof) -> ServiceError {
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

    static func ordered<T: Hashable>(_ items: [T]) -> [T] {
        var seen = Set<T>()
        return items.filter { seen.insert($0).inserted }
    }
}
