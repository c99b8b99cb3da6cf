import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Crypto
import Foundation

/// `aasactl plan` (a dry run) and `aasactl apply` of a team's manifest: one transaction that locks
/// every domain the manifest touches, makes the named apps and their rules what it says,
/// validates every touched domain through the pipeline's gate and policies, and commits — or, for
/// a plan, rolls back and answers what it would do.
package struct ManifestApply: Sendable {
    package let work: RequestWork
    package let pipeline: DomainChangePipeline
    package let principal: Principal
    package let actor: Actor
    package let maxRulesPerTeam: Int

    package init(
        work: RequestWork, pipeline: DomainChangePipeline, principal: Principal, actor: Actor, maxRulesPerTeam: Int
    ) {
        self.work = work
        self.pipeline = pipeline
        self.principal = principal
        self.actor = actor
        self.maxRulesPerTeam = maxRulesPerTeam
    }

    package func run(_ manifest: ManifestRequest, team: String, ifMatch: String?, dryRun: Bool) async throws -> Outcome
    {
        if dryRun && !principal.canWrite {
            // A plan changes nothing (its transaction rolls back, nothing is published): a team's
            // read token may see what its manifest would do, as its write token would (issue 39: a
            // pull request's job plans with read only). The write it plans as is this one bypass.
            var planner = principal
            planner.scopes.insert(.write)
            return try await ManifestApply(
                work: work, pipeline: pipeline, principal: planner, actor: actor, maxRulesPerTeam: maxRulesPerTeam
            ).run(manifest, team: team, ifMatch: ifMatch, dryRun: true)
        }
        var outcome = try await work.transaction(rollingBack: dryRun) { session in
            try await applyLocked(manifest, team: team, ifMatch: ifMatch, dryRun: dryRun, session: session)
        }
        if !dryRun { await publishAfterCommit(manifest, &outcome) }
        return outcome
    }

    /// The manifest's own publish of the domains it names (with its `publishReason`), or each
    /// changed domain's auto-publish: after the commit, each an outcome beside the committed change.
    private func publishAfterCommit(_ manifest: ManifestRequest, _ outcome: inout Outcome) async {
        let after = PublishAfterCommit(publisher: pipeline.publisher)
        for domain in outcome.domains {
            let asked = manifest.publishReason != nil && manifest.domains.contains { $0.host == domain.host }
            guard asked || domain.changed && outcome.autoPublish.contains(domain.host) else { continue }
            outcome.published[domain.host] = await after.run(
                host: domain.host, reason: asked ? manifest.publishReason : nil, after: "manifest", actor: actor,
                logger: work.logger, authorize: PublishRights.check(principal))
        }
    }

    package struct Outcome: Sendable {
        package var team: String
        package var changed: Bool
        package var stateTag: String
        package var apps: [ManifestAppChange]
        package var domains: [ManifestDomainResult]
        /// Hosts of the changed domains that publish after every valid change.
        package var autoPublish: Set<String> = []
        /// What each publish after the commit did, by host (an apply only).
        package var published: [String: PublishAfterCommit.Result] = [:]
    }

    private func applyLocked(
        _ manifest: ManifestRequest, team teamName: String, ifMatch: String?, dryRun: Bool,
        session: DBSession
    ) async throws -> Outcome {
        let team = try await Lookup.visibleTeam(teamName, principal, session: session)
        guard principal.canWrite else { throw ServiceError.forbidden("a read token cannot apply a manifest") }
        let manifest = try await Self.scoped(manifest, session: session)
        var state = ApplyState(team: team)
        try await lockTargets(manifest, &state, session: session)
        let before = try await stateTag(
            session, manifest: manifest, teamID: team.id, existing: state.existing, domains: state.locked)
        try ETag.check(ifMatch, current: before)
        for domain in state.locked {
            state.documentsBefore[domain.id] = try await DomainDocument.render(try await session.snapshot(of: domain))
        }
        try await writeApps(manifest, &state, session: session)
        try await writeBuilds(manifest, &state, session: session)
        try await writeRulesFrom(manifest, &state, session: session)
        try await writeRules(manifest, &state, session: session)
        try await writeRelatedOrigins(manifest, &state, session: session)
        guard state.errors.isEmpty else { throw ServiceError.invalid(state.errors) }
        let (results, anyChange, autoPublish) = try await validateDomains(manifest, &state, session: session)
        let after = try await stateTag(
            session, manifest: manifest, teamID: team.id, existing: state.apps, domains: state.locked)
        // A plan names the state it was made from (the apply's If-Match); an apply the state it left.
        return Outcome(
            team: team.name, changed: anyChange, stateTag: dryRun ? before : after,
            apps: state.appChanges, domains: results, autoPublish: autoPublish)
    }

    /// What the stages of one apply share: the team, what is locked and written so far, and every
    /// field error found (a manifest is answered with all of them at once).
    private struct ApplyState {
        package var team: TeamRecord
        package var errors: [FieldError] = []
        /// The manifest's apps registered before it, locked.
        package var existing: [String: AppRecord] = [:]
        /// Every domain the manifest can change, locked in ID order.
        package var locked: [DomainRecord] = []
        package var documentsBefore: [Int64: DomainDocument] = [:]
        /// The manifest's apps as written.
        package var apps: [String: AppRecord] = [:]
        package var appChanges: [ManifestAppChange] = []
        /// "host appID ruleID" → the body pointer of the rule, so findings name the manifest's own lines.
        package var pointers: [String: String] = [:]
        package var ruleChanges: [Int64: [ManifestRuleChange]] = [:]
        /// The team's related origins added and removed, by domain.
        package var originChanges: [Int64: (added: [String], removed: [String])] = [:]
    }

    /// Stage 1: the named apps (an app ID registered to another team is refused, not taken over)
    /// and every domain the manifest can change, locked.
    private func lockTargets(_ manifest: ManifestRequest, _ state: inout ApplyState, session: DBSession) async throws {
        let team = state.team
        // The named apps, locked; an app ID registered to another team is refused, not taken over.
        for app in manifest.apps {
            guard let record = try await session.app(appID: app.appID, forUpdate: true) else { continue }
            if record.teamID != team.id {
                state.errors.append(
                    FieldError(
                        field: "\(app.pointer)/appID", rule: "owned-by-another-team",
                        message: "\(app.appID) is registered to another team"))
            } else {
                state.existing[app.appID] = record
            }
        }

        // Every domain the manifest can change: those it lists, those where its apps have rules,
        // and those where the team holds a grant (service lists follow the apps). Locked in ID order.
        var ids = Set<Int64>()
        for domain in manifest.domains {
            if let record = try await session.domain(host: domain.host) {
                ids.insert(record.id)
            } else {
                state.errors.append(
                    FieldError(
                        field: "\(domain.pointer)/host", rule: "exists", message: "there is no domain \(domain.host)"))
            }
        }
        for app in state.existing.values { ids.formUnion(try await session.domainIDsWithRules(appPK: app.id)) }
        ids.formUnion(try await session.domainIDsGranted(teamID: team.id))
        guard state.errors.isEmpty else { throw ServiceError.invalid(state.errors) }
        for id in ids.sorted() {
            if let domain = try await session.domain(id: id, forUpdate: true) { state.locked.append(domain) }
        }
    }

    /// A manifest applied to one environment (`apply --env`): only the domains of that environment
    /// are written (an unknown host stays, to be refused by name); 422 for an unknown environment.
    package static func scoped(_ manifest: ManifestRequest, session: DBSession) async throws -> ManifestRequest {
        guard let environment = manifest.environment else { return manifest }
        let names = try await session.listEnvironments().map(\.name)
        guard names.contains(environment) else {
            throw ServiceError.invalid(
                field: "/environment", rule: "unknown-environment",
                "there is no environment \(environment) (there are \(names.joined(separator: ", ")))")
        }
        var scoped = manifest
        scoped.domains = []
        for domain in manifest.domains {
            let record = try await session.domain(host: domain.host)
            if record == nil || record?.environment == environment { scoped.domains.append(domain) }
        }
        return scoped
    }

    /// Stage 2b: the builds of each app that lists them, made what the manifest says through the
    /// builds API's own write; the policies judge them with the domains, in the last stage.
    private func writeBuilds(_ manifest: ManifestRequest, _ state: inout ApplyState, session: DBSession) async throws {
        for app in manifest.apps {
            guard var items = app.builds, let record = state.apps[app.appID] else { continue }
            if let environment = manifest.environment {
                // This environment's build as the manifest says; the others' as they are.
                items =
                    items.filter { $0.environment == environment }
                    + (try await session.builds(appPKs: [record.id])).filter { $0.environment != environment }.map {
                        BuildsInput.Item(
                            environment: $0.environment, appID: $0.identity,
                            fingerprints: $0.fingerprints.isEmpty ? nil : $0.fingerprints,
                            playSigningAbsent: $0.playSigningAbsent)
                    }
            }
            do {
                let applied = try await BuildsChange(appID: app.appID, items: items, ifMatch: nil, pointer: app.pointer)
                    .applyWithin(session, principal: principal, actor: actor)
                guard !applied.audit.isEmpty else { continue }
                state.apps[app.appID] = try await session.app(appID: app.appID) ?? record
            } catch let problem as ServiceError where problem.kind != .forbidden {
                state.errors += problem.errors
            }
        }
    }

    /// Stage 2: each named app registered or brought to what the manifest says, through the
    /// apps API's own registration (`AppChange.register`).
    private func writeApps(_ manifest: ManifestRequest, _ state: inout ApplyState, session: DBSession) async throws {
        let team = state.team
        for app in manifest.apps {
            let services = app.services
            if let current = state.existing[app.appID] {
                state.apps[app.appID] = current
                if current.platform != app.platform {
                    state.errors.append(
                        FieldError(
                            field: "\(app.pointer)/platform", rule: "platform",
                            message:
                                """
                                \(app.appID) is registered as an \(current.platform.rawValue) app; an app's \
                                platform does not change
                                """
                        ))
                    continue
                }
                let fingerprints = app.platform == .android ? app.fingerprints : current.fingerprints
                guard current.services != app.services || current.fingerprints != fingerprints else {
                    state.appChanges.append(.init(appID: app.appID, action: .unchanged, services: services))
                    continue
                }
                // The apps API's own change, so its checks run here too (a service no domain may
                // lose while rules use it, an app following another's rules); its refusals join the
                // manifest's other errors under the app's pointer.
                let change = AppChange(
                    kind: .update(
                        appID: app.appID, team: nil, services: app.services,
                        fingerprints: app.platform == .android ? fingerprints : nil),
                    ifMatch: nil)
                do {
                    let applied = try await change.applyWithin(session, principal: principal, actor: actor)
                    state.apps[app.appID] = applied.output
                } catch let refusal as ServiceError where refusal.kind == .invalid || refusal.kind == .conflict {
                    state.errors += Self.pointed(refusal, at: app.pointer)
                    continue
                }
                state.appChanges.append(
                    .init(
                        appID: app.appID, action: .update, services: services,
                        previousServices: current.services))
            } else {
                // The apps API's own registration, and its audit.
                let created: AppRecord
                do {
                    created = try await AppChange(
                        kind: .create(
                            team: team.name, appID: app.appID, services: app.services,
                            android: app.platform == .android ? app.fingerprints : nil),
                        ifMatch: nil
                    ).applyWithin(session, principal: principal, actor: actor).output
                } catch let problem as ServiceError where problem.kind == .conflict {
                    throw ServiceError.conflict(
                        problem.detail ?? problem.title, field: "\(app.pointer)/appID", rule: "unique")
                } catch let problem as ServiceError where problem.kind == .forbidden {
                    // Among the manifest's other errors, a prefix the team may not use is one more field error.
                    state.errors.append(
                        FieldError(
                            field: "\(app.pointer)/appID", rule: "apple-team-id",
                            message: problem.detail ?? problem.title))
                    continue
                }
                state.apps[app.appID] = created
                state.appChanges.append(.init(appID: app.appID, action: .create, services: services))
            }
        }

    }

    /// Stage 3: each Android app follows the iOS app the manifest names, or keeps its own rules.
    /// Not through `AppChange`: the apps API refuses to make an app with rules of its own follow
    /// another, while a manifest drops those rules in the next stage, in the same transaction.
    private func writeRulesFrom(_ manifest: ManifestRequest, _ state: inout ApplyState, session: DBSession) async throws
    {
        let team = state.team
        // One rule list: an Android app follows the iOS app (of the team) the manifest names, or keeps its own.
        for app in manifest.apps where app.platform == .android {
            guard let record = state.apps[app.appID], record.rulesFrom != app.rulesFrom else { continue }
            var sourcePK: Int64?
            if let wanted = app.rulesFrom {
                do {
                    sourcePK = try await AppChange.ruleSource(
                        wanted, for: record, session: session, field: "\(app.pointer)/rulesFrom"
                    ).id
                } catch let problem as ServiceError {
                    state.errors += problem.errors
                    continue
                }
            }
            try await session.setRulesFrom(id: record.id, source: sourcePK)
            guard let after = try await session.app(appID: app.appID) else { continue }
            state.apps[app.appID] = after
            try await session.appendAudit(
                AuditEntry(
                    action: "app.update", entityType: "app", entityID: app.appID,
                    team: team.name, appID: app.appID, before: AuditJSON.app(record), after: AuditJSON.app(after)
                ).record(by: actor))
        }

    }

    /// A refusal of one app's change among the manifest's errors, under the app's pointer.
    private static func pointed(_ refusal: ServiceError, at pointer: String) -> [FieldError] {
        (refusal.errors.isEmpty
            ? [FieldError(field: "", rule: refusal.slug, message: refusal.detail ?? refusal.title)]
            : refusal.errors).map { FieldError(field: pointer + $0.field, rule: $0.rule, message: $0.message) }
    }

    /// Stage 4: each named app's rules on each locked domain (of the manifest's environment, when it
    /// names one) become what the manifest lists, each through the rules API's own `RuleSetChange`.
    private func writeRules(_ manifest: ManifestRequest, _ state: inout ApplyState, session: DBSession) async throws {
        // Rules: each named app's rules on each locked domain become what the manifest lists (none
        // where it lists nothing). Pointers let errors name the manifest's own rules.
        // A manifest applied to one environment leaves the other environments' domains as they are.
        for domain in state.locked where manifest.environment.map({ $0 == domain.environment }) ?? true {
            let entry = manifest.domains.first { $0.host == domain.host }
            for app in manifest.apps {
                guard let record = state.apps[app.appID] else { continue }
                let wanted = entry?.apps.first { $0.appID == app.appID }
                let current = try await session.ruleSet(domainID: domain.id, app: record)
                let rules = ManifestRequest.resolve(wanted?.rules ?? [], current: current.rules)
                for (k, rule) in rules.enumerated() {
                    if let wanted {
                        state.pointers["\(domain.host) \(app.appID) \(rule.id.uuidString.lowercased())"] =
                            "\(wanted.pointer)/rules/\(k)"
                    }
                }
                let manifestDecides = wanted?.manifestDecides ?? false
                guard rules != current.rules || manifestDecides != current.manifestDecides else {
                    if current.version > 0 || wanted != nil {
                        state.ruleChanges[domain.id, default: []].append(
                            .init(
                                appID: app.appID, action: .unchanged, rulesBefore: current.rules.count,
                                rulesAfter: rules.count, version: current.version))
                    }
                    continue
                }
                let base = wanted?.pointer ?? app.pointer
                // The rules API's own change: the same check (grants, budgets, applinks, rules-from),
                // the same write and audit; a refusal joins the manifest's other errors, named by
                // the manifest's pointers.
                let change = RuleSetChange(
                    host: domain.host, appID: app.appID, ifMatch: nil, action: "rules.replace",
                    maxRulesPerTeam: maxRulesPerTeam, edit: .set(rules),
                    manifestDecides: manifestDecides,
                    fields: .init(
                        app: "\(base)/appID", domain: "\(entry?.pointer ?? app.pointer)/host", rules: "\(base)/rules",
                        rulePath: { "\(base)/rules/\($0)/~1" }))
                let version: Int64
                do {
                    let applied = try await change.applyWithin(session, principal: principal, actor: actor)
                    version = applied.output.set.version
                } catch let refusal as ServiceError where refusal.kind == .invalid {
                    for problem in refusal.errors where !state.errors.contains(problem) { state.errors.append(problem) }
                    continue
                }
                state.ruleChanges[domain.id, default: []].append(
                    .init(
                        appID: app.appID, action: rules.isEmpty && !manifestDecides ? .clear : .replace,
                        rulesBefore: current.rules.count, rulesAfter: rules.count, version: version))
            }
        }
    }

    /// Stage 4b: the team's related origins on each domain whose entry lists them (issue 52) become
    /// what the manifest says, each through the related-origins API's own `RelatedOriginChange`
    /// (owned by the manifest's team, whoever applies it): its checks, refusals and audit.
    private func writeRelatedOrigins(_ manifest: ManifestRequest, _ state: inout ApplyState, session: DBSession)
        async throws
    {
        for entry in manifest.domains {
            guard let wanted = entry.relatedOrigins, let domain = state.locked.first(where: { $0.host == entry.host })
            else { continue }
            let pointer = "\(entry.pointer)/relatedOrigins"
            // The list's own checks (shape, duplicates, labels) as the API makes them, each naming its entry.
            let checked = RelatedOrigins.check(wanted)
            state.errors += checked.problems.map {
                FieldError(field: "\(pointer)/\($0.index)", rule: $0.rule, message: $0.message)
            }
            let own = try await session.relatedOrigins(domainID: domain.id).filter { $0.team == state.team.name }
                .map(\.origin)
            var added: [String] = []
            var removed: [String] = []
            for origin in own where !checked.origins.contains(origin) {
                do {
                    _ = try await RelatedOriginChange(
                        host: domain.host, kind: .remove(origin), ifMatch: nil, owner: state.team
                    ).applyWithin(session, principal: principal, actor: actor)
                    removed.append(origin)
                } catch let refusal as ServiceError { state.errors += Self.pointed(refusal, at: pointer) }
            }
            for (origin, k) in zip(checked.origins, checked.indices) where !own.contains(origin) {
                do {
                    _ = try await RelatedOriginChange(
                        host: domain.host, kind: .add(origin), ifMatch: nil, owner: state.team
                    ).applyWithin(session, principal: principal, actor: actor)
                    added.append(origin)
                } catch let refusal as ServiceError {
                    state.errors += Self.pointed(refusal, at: "\(pointer)/\(k)").map {
                        // The change names its own body's field (`/origin`); here the entry is the field.
                        FieldError(
                            field: $0.field.replacingOccurrences(of: "/origin", with: ""), rule: $0.rule,
                            message: $0.message)
                    }
                }
            }
            state.originChanges[domain.id] = (added, removed)
        }
    }

    /// Stage 5: every locked domain validated as it now stands, its golden URLs synced and its
    /// policies run; every error is collected before refusing.
    private func validateDomains(_ manifest: ManifestRequest, _ state: inout ApplyState, session: DBSession)
        async throws -> (results: [ManifestDomainResult], anyChange: Bool, autoPublish: Set<String>)
    {
        let team = state.team
        // Validate every locked domain as it now stands; collect every error before refusing.
        var warnings: [Finding] = []
        var results: [ManifestDomainResult] = []
        var anyChange = state.appChanges.contains { $0.action != .unchanged }
        var autoPublish = Set<String>()
        for domain in state.locked {
            let rendered: DomainDocument
            do {
                rendered = try await pipeline.validate(session, domain: domain) { finding in
                    guard let appID = finding.appID, let ruleID = finding.ruleID,
                        let base = state.pointers["\(domain.host) \(appID) \(ruleID)"]
                    else { return nil }
                    return base
                        + JSONPointer(tokens: Array(JSONPointer.tokens(of: finding.path).dropFirst(5))).description
                }
            } catch let problem as ServiceError where problem.kind == .invalid {
                state.errors += problem.errors
                warnings += problem.warnings
                continue
            }
            var expectationChanges: [ManifestExpectationChange] = []
            if let entry = manifest.domains.first(where: { $0.host == domain.host }), let wanted = entry.expect {
                let synced = try await Self.syncExpectations(
                    wanted, pointer: entry.pointer, team: team, domain: domain,
                    rendered: rendered, actor: actor, session: session)
                expectationChanges = synced.changes
                state.errors += synced.errors
                guard synced.errors.isEmpty else { continue }
            }
            try await pipeline.checkPolicies(
                rendered, action: "manifest.apply", domain: domain, actor: actor, session: session)
            let changes = state.ruleChanges[domain.id] ?? []
            let old = state.documentsBefore[domain.id]
            let origins = state.originChanges[domain.id]
            let changed =
                changes.contains { $0.action != .unchanged } || old?.bytes != rendered.bytes
                || expectationChanges.contains { $0.action != .unchanged }
                || !(origins.map { $0.added.isEmpty && $0.removed.isEmpty } ?? true)
            anyChange = anyChange || changed
            if changed && domain.autoPublish { autoPublish.insert(domain.host) }
            guard changed || manifest.domains.contains(where: { $0.host == domain.host }) else { continue }
            let diff = DocumentDiff(from: old?.document ?? AASADocument(), to: rendered.document, host: domain.host)
            // Android's answer too, where either file has a statement: the URLs whose outcome on a
            // device changes, by Android's own matching (the plan in a pull request shows both).
            let android: JSONValue? =
                (old?.android.isEmpty ?? true) && rendered.android.isEmpty
                ? nil
                : AndroidDecisionChanges(
                    from: old?.android.document ?? AssetLinksDocument(statements: []),
                    to: rendered.android.document, host: domain.host, maxChanges: 500
                ).jsonValue
            var result = ManifestDomainResult(
                host: domain.host, environment: domain.environment, changed: changed, rules: changes,
                expectations: expectationChanges.isEmpty ? nil : expectationChanges,
                diff: diff.jsonValue, warnings: Self.scoped(rendered, to: team.name).warningFindings)
            result.androidChanges = android
            result.relatedOrigins = origins
            results.append(result)
        }
        guard state.errors.isEmpty else {
            throw ServiceError.invalid(
                state.errors, warnings: warnings,
                detail: "the manifest would leave a domain invalid: "
                    + ServiceError.listed(state.errors.map { "\($0.field): \($0.message)" }))
        }
        return (results, anyChange, autoPublish)
    }

    /// A manifest writes one team's rules: the platform-agreement warnings are about that team.
    package static func scoped(_ document: DomainDocument, to team: String) -> DomainDocument {
        var scoped = document
        scoped.agreementScope = [team]
        return scoped
    }

    /// A digest of everything the manifest owns: its team's expectations on the domains it names, its
    /// apps' versions and their rule sets' versions on the locked domains. Equal tags mean nothing the
    /// manifest would change has moved.
    private func stateTag(
        _ session: DBSession, manifest: ManifestRequest, teamID: Int64, existing: [String: AppRecord],
        domains: [DomainRecord]
    ) async throws -> String {
        var state = StateTag()
        for domain in domains where manifest.domains.contains(where: { $0.host == domain.host && $0.expect != nil }) {
            for e in try await session.listExpectations(domainID: domain.id) where e.teamID == teamID {
                state.record("expect \(domain.host) \(e.id.uuidString)", version: e.version)
            }
        }
        for domain in domains
        where manifest.domains.contains(where: { $0.host == domain.host && $0.relatedOrigins != nil }) {
            let own = try await session.relatedOrigins(domainID: domain.id).filter { $0.team != nil }
            state.record(
                "related origins \(domain.host)",
                text: own.map { "\($0.team ?? "") \($0.origin)" }.joined(separator: " "))
        }
        for app in manifest.apps {
            try await state.recordApp(app.appID, existing[app.appID], on: domains, session: session)
        }
        return state.tag("m")
    }
}
