import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation
import Logging

/// Promotion (issue 25): the rules a source environment's domains publish, brought to the paired
/// domains of the next environment and published there, each new revision naming the source
/// revision it came from. The plan is the promotion itself, rolled back: every target is written,
/// validated and judged by the policies (golden URLs, protected paths, isolation) as its publish
/// will be, so a promotion that would break a target is refused before anything changes. Only
/// the apps that have a rule list on the source are touched on the target.
package struct PromotionService: Sendable {
    package let work: RequestWork
    package let publisher: Publisher
    package let principal: Principal
    package let actor: Actor
    package let maxRulesPerTeam: Int
    package let logger: Logger

    package init(
        work: RequestWork, publisher: Publisher, principal: Principal, actor: Actor, maxRulesPerTeam: Int,
        logger: Logger
    ) {
        self.work = work
        self.publisher = publisher
        self.principal = principal
        self.actor = actor
        self.maxRulesPerTeam = maxRulesPerTeam
        self.logger = logger
    }

    package struct Request: Sendable {
        package var from: String
        package var to: String
        /// `(source?, target)` hosts; empty: every target domain with a source of the same shape.
        package var domains: [(source: String?, target: String)]
        /// Take the source domains' drafts where they differ from what they publish.
        package var takeDrafts: Bool
        package var apply: Bool
        package var reason: String?

        package init(
            from: String, to: String, domains: [(source: String?, target: String)], takeDrafts: Bool, apply: Bool,
            reason: String? = nil
        ) {
            self.from = from
            self.to = to
            self.domains = domains
            self.takeDrafts = takeDrafts
            self.apply = apply
            self.reason = reason
        }
    }

    package struct AppPlan: Sendable {
        package var appID: String
        package var team: String
        package var gained: [JSONValue]
        package var lost: [JSONValue]
    }

    package struct DomainPlan: Sendable {
        package var source: String
        /// The source's current revision the rules were taken from (nil: its draft, never published).
        package var sourceRevision: Int?
        package var fromDraft: Bool
        package var target: String
        package var apps: [AppPlan]
        /// AASAModel's diff of the target's current file against the promoted one (URLs whose app changes).
        package var diff: JSONValue?
        package var warnings: [Finding]
        /// After `apply`: the target's new revision (nil when its file was already this).
        package var revision: Int?
        fileprivate var taken: Taken
    }

    package struct Plan: Sendable {
        package var from: String
        package var to: String
        package var domains: [DomainPlan]
        package var unpaired: [String]
        package var applied: Bool
    }

    /// The plan, and with `apply` the promotion itself (`apply(_:reason:)`).
    package func run(_ request: Request) async throws -> Plan {
        let plan = try await plan(request)
        guard request.apply else { return plan }
        return try await apply(plan, from: request.from, to: request.to, reason: request.reason)
    }

    /// The promotion run dry: what each target would take is read, then the promotion's own
    /// publish (`publishItems`) runs with `dryRun`, so every target is written, validated, judged by
    /// every policy and given its revision exactly as the apply will, and rolled back.
    package func plan(_ request: Request) async throws -> Plan {
        guard principal.isAdmin else { throw ServiceError.forbidden("a promotion needs an admin token") }
        var (plan, current) = try await work.read { session in try await self.plan(request, session: session) }
        let outcomes = try await publisher.publishAll(
            publishItems(plan, from: request.from, to: request.to, reason: nil), actor: actor, logger: logger,
            dryRun: true)
        for (i, outcome) in outcomes.enumerated() {
            plan.domains[i].warnings = outcome.warnings
            plan.domains[i].diff = PublishedFile.aasa.diff(
                from: current[i]?.bytes ?? Array(#"{"applinks":{"details":[]}}"#.utf8),
                to: outcome.primary.revision.bytes, host: plan.domains[i].target)
        }
        return plan
    }

    /// The promotion as one publish of every target (`Publisher.publishAll`): each target's draft
    /// after its source's rules are written in, checked again inside the transaction (its source
    /// has not published since the plan, it has no unpublished change of its own), with the
    /// `domain.promote` audit event. The plan runs it dry; the apply for real.
    private func publishItems(_ plan: Plan, from: String, to: String, reason: String?) -> [(
        host: String, reason: String, source: Publisher.Source
    )] {
        plan.domains.map { domain in
            (
                host: domain.target,
                reason: reason
                    ?? "promoted from \(domain.source) "
                    + (domain.fromDraft ? "draft" : "revision \(domain.sourceRevision.map(String.init) ?? "?")"),
                source: Publisher.Source.promotion(
                    aasa: domain.taken.aasa, assetLinks: domain.taken.assetLinks,
                    write: { session, target in
                        do {
                            try await Self.checkSourceUnmoved(domain, session: session)
                            _ = try await Self.checkPublished(target, session: session)
                            try await Self.write(
                                domain.taken.rules, to: target, principal: principal, actor: actor,
                                maxRulesPerTeam: maxRulesPerTeam, session: session)
                            try await session.appendAudit(
                                AuditEntry(
                                    action: "domain.promote", entityType: "domain", entityID: target.host,
                                    domain: target.host, before: nil,
                                    after: .object([
                                        "from": .string(domain.source),
                                        "fromRevision": domain.sourceRevision.map { .number(String($0)) } ?? .null,
                                        "fromDraft": .bool(domain.fromDraft),
                                        "fromEnvironment": .string(from), "toEnvironment": .string(to),
                                        "apps": .array(domain.apps.map { .string($0.appID) }),
                                    ])
                                ).record(by: actor))
                        } catch var refusal as ServiceError {
                            refusal.detail =
                                "\(target.host): \(refusal.detail ?? refusal.title); no target was promoted"
                            throw refusal
                        }
                    })
            )
        }
    }

    /// Applies a plan, all or nothing: every target's rules are written and its files published in
    /// one transaction (`Publisher.publishAll`), each checked again inside it (its source has not
    /// published since the plan, it has no unpublished change of its own, every rule-write check
    /// and policy). A refusal at any target leaves every target as it was, and names the target.
    /// Chosen over "each target's outcome" because a half-promoted environment (prod's first
    /// domain on the new rules, its second on the old) is the state a release must never be in.
    package func apply(_ plan: Plan, from: String, to: String, reason: String?) async throws -> Plan {
        guard principal.isAdmin else { throw ServiceError.forbidden("a promotion needs an admin token") }
        var plan = plan
        let items = publishItems(plan, from: from, to: to, reason: reason)
        let outcomes = try await publisher.publishAll(items, actor: actor, logger: logger)
        for (i, outcome) in outcomes.enumerated() {
            plan.domains[i].revision = outcome.primary.created ? outcome.primary.revision.number : nil
        }
        plan.applied = true
        return plan
    }

    /// What each pair would promote, read: the source's rules, the target's rules and current revision.
    private func plan(_ request: Request, session: DBSession) async throws -> (Plan, [RevisionRecord?]) {
        let environments = try await session.listEnvironments().map(\.name)
        guard let fromIndex = environments.firstIndex(of: request.from) else {
            throw ServiceError.invalid(
                field: "/from", rule: "unknown-environment", "there is no environment \(request.from)")
        }
        guard let toIndex = environments.firstIndex(of: request.to) else {
            throw ServiceError.invalid(
                field: "/to", rule: "unknown-environment", "there is no environment \(request.to)")
        }
        guard fromIndex < toIndex else {
            throw ServiceError.invalid(
                field: "/to", rule: "order",
                "a promotion goes forward in \(environments.joined(separator: " → ")): \(request.to) does not follow "
                    + request.from)
        }
        let pairs = try await PromotionPairs.find(
            from: request.from, to: request.to, named: request.domains, session: session)
        var domains: [DomainPlan] = []
        var current: [RevisionRecord?] = []
        for pair in pairs.pairs {
            let taken = try await Self.takeRules(pair.source, takeDrafts: request.takeDrafts, session: session)
            guard let target = try await session.domain(id: pair.target.id) else { continue }
            current.append(try await Self.checkPublished(target, session: session))
            let before = try await Self.ruleSets(of: target, session: session)
            let apps = taken.rules.compactMap { Self.appPlan($0, was: before[$0.appPK]?.rules ?? []) }
            domains.append(
                DomainPlan(
                    source: pair.source.host, sourceRevision: taken.currentRevision, fromDraft: taken.fromDraft,
                    target: target.host, apps: apps, diff: nil, warnings: [], taken: taken))
        }
        return (
            Plan(from: request.from, to: request.to, domains: domains, unpaired: pairs.unpaired, applied: false),
            current
        )
    }

    /// What a promotion takes from a source domain: its rule lists, and where each file's content
    /// came from (a revision, or the draft).
    package struct Taken: Sendable {
        package var rules: [RuleSetRecord]
        package var aasa: PromotionSource
        /// nil when the source has nothing for Android, published or drafted.
        package var assetLinks: PromotionSource?
        /// The source's current AASA revision when the rules were taken (nil: never published).
        package var currentRevision: Int?

        package var fromDraft: Bool { aasa.fromDraft || assetLinks?.fromDraft == true }
    }

    /// The source's rule lists as it publishes them: refused (409) while either file's draft differs
    /// from its current revision, or it never published, unless the drafts are asked for.
    package static func takeRules(_ source: DomainRecord, takeDrafts: Bool, session: DBSession) async throws -> Taken {
        let state = try await UnpublishedChanges.of(source, session: session)
        let neverPublished = state.currentAASA == nil
        if (neverPublished || state.any) && !takeDrafts {
            throw ServiceError.conflict(
                neverPublished
                    ? "\(source.host) has never been published: publish it first, or take its draft (takeDrafts)"
                    : """
                    \(source.host) has unpublished changes (\(state.files.joined(separator: ", "))): publish them \
                    first, or take its draft (takeDrafts)
                    """,
                field: "/from", rule: "unpublished-changes")
        }
        let aasa =
            if let current = state.currentAASA, !state.aasa {
                PromotionSource(host: source.host, revision: current.number)
            } else {
                PromotionSource(
                    host: source.host, draftSHA256: Hex.sha256(state.draft.bytes), draftBase: state.currentAASA?.number)
            }
        var assetLinks: PromotionSource?
        if let current = state.currentAssetLinks, !state.assetLinks {
            assetLinks = PromotionSource(host: source.host, revision: current.number)
        } else if state.assetLinks {
            assetLinks = PromotionSource(
                host: source.host, draftSHA256: Hex.sha256(state.draft.android.bytes),
                draftBase: state.currentAssetLinks?.number)
        }
        return Taken(
            rules: state.draft.snapshot.ruleSets, aasa: aasa, assetLinks: assetLinks,
            currentRevision: state.currentAASA?.number)
    }

    /// The target publishes what its drafts say, for both files: a promotion publishes the target,
    /// and must not publish someone's unreviewed change with it. Asked at the plan and again at the
    /// apply, inside the publish's transaction.
    package static func checkPublished(_ target: DomainRecord, session: DBSession) async throws -> RevisionRecord? {
        let state = try await UnpublishedChanges.of(target, session: session)
        if state.any {
            throw ServiceError.conflict(
                """
                \(target.host) has unpublished changes of its own (\(state.files.joined(separator: ", "))): publish \
                or undo them before promoting onto it
                """,
                field: "/to", rule: "unpublished-changes")
        }
        return state.currentAASA
    }

    /// Between plan and apply the source must not have published something else.
    package static func checkSourceUnmoved(_ plan: DomainPlan, session: DBSession) async throws {
        guard !plan.fromDraft, let source = try await session.domain(host: plan.source) else { return }
        if source.currentRevision != plan.sourceRevision {
            throw ServiceError.conflict(
                "\(plan.source) published revision \(source.currentRevision ?? 0) since the plan; promote again",
                field: "/from", rule: "source-moved")
        }
    }

    /// The source's rule lists become the target's, app by app (other apps stay as they are), each
    /// through the rules API's own change (`RuleSetChange`), so every write meets the one rule-write
    /// check against the target's grants and budgets (issue 41: promotion once saved the rules as
    /// they were, and a catch-all granted on staging reached production past a `/blog` grant).
    /// A refusal names the target, the app and the rule.
    package static func write(
        _ taken: [RuleSetRecord], to target: DomainRecord, principal: Principal, actor: Actor, maxRulesPerTeam: Int,
        session: DBSession
    ) async throws {
        let existing = try await ruleSets(of: target, session: session)
        for set in taken
        where existing[set.appPK]?.rules != set.rules || existing[set.appPK]?.manifestDecides != set.manifestDecides {
            let change = RuleSetChange(
                host: target.host, appID: set.appID, ifMatch: nil, action: "promotion.rules.replace",
                maxRulesPerTeam: maxRulesPerTeam, edit: .set(set.rules),
                manifestDecides: set.manifestDecides)
            do {
                _ = try await change.applyWithin(session, principal: principal, actor: actor)
            } catch let error as ServiceError where error.kind == .invalid {
                throw refusal(error, target: target.host, app: set.appID)
            }
        }
    }

    /// The target's rule sets, by app: what the plan compares against and the write leaves alone.
    private static func ruleSets(of target: DomainRecord, session: DBSession) async throws -> [Int64: RuleSetRecord] {
        Dictionary(
            try await session.listRuleSets(domainID: target.id).map { ($0.appPK, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// A rule-write refusal as the promotion's: each field error says which target and app it is
    /// about, and a violation per error carries them apart for a program to read.
    package static func refusal(_ error: ServiceError, target: String, app: String) -> ServiceError {
        var refusal = error
        refusal.detail =
            "promoting onto \(target) would write rules \(app) may not have there: "
            + ServiceError.listed(error.errors.map(\.message))
        refusal.errors = error.errors.map {
            FieldError(field: "/to", rule: $0.rule, message: "\(target), \(app): \($0.message)")
        }
        refusal.violations += error.errors.map {
            .object([
                "target": .string(target), "appID": .string(app), "rule": .string($0.rule), "field": .string($0.field),
            ])
        }
        return refusal
    }

    /// The rules an app gains and loses on the target, compared by their JSON; nil when none.
    package static func appPlan(_ set: RuleSetRecord, was: [StoredRule]) -> AppPlan? {
        let text = { (rule: StoredRule) in JSONWriter().string(rule.component) }
        let (old, new) = (Set(was.map(text)), Set(set.rules.map(text)))
        let gained = set.rules.filter { !old.contains(text($0)) }.map(\.component)
        let lost = was.filter { !new.contains(text($0)) }.map(\.component)
        guard !gained.isEmpty || !lost.isEmpty else { return nil }
        return AppPlan(appID: set.appID, team: set.teamName, gained: gained, lost: lost)
    }
}
