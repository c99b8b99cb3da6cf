import AASAModel
import AASAStore
import AASATestSupport
import Foundation
import Logging
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServices

/// Issue 40, tests in the middle: the core's services called directly on a real PostgreSQL (a clone
/// of the migrated template), no HTTP. Each composite writer (a manifest, a promotion) refuses what
/// the rules API's own change refuses, with the same rule name: the three go through one check.
@Suite struct CompositeWritersTests {
    static let shop = "ABCDE12345.com.example.shop"
    static let news = "ABCDE12345.com.example.news"

    /// What an import of the same rules gets. An import is an admin's act that proposes the grants
    /// its file needs (`GrantProposal`), so the grant rows do not refuse it: its plan widens the
    /// grant instead. An AASA file cannot carry an Android app's own rules, nor rules for an app
    /// whose applinks is off without turning it on, so those rows have no import.
    enum ImportOutcome {
        case refused(String)
        case widensGrant, notApplicable
    }

    /// The refusals every writer must give, each as (what the team's rules on the target are, the
    /// app, the rule, the import's outcome). A promotion runs each row whose rules staging holds.
    static let cases: [(name: String, paths: [String], app: String, rule: String, imports: ImportOutcome)] = [
        ("a rule outside the team's grant", ["/blog/*"], shop, "outside-grant", .widensGrant),
        // The import would widen shop's grant to /, and its /* then opens the golden URL.
        ("a catch-all from a team granted less than /", ["/*"], shop, "catch-all", .refused("expectation-broken")),
        (
            "more rules than the team's budget", ["/shop/a", "/shop/b", "/shop/c", "/shop/d"], shop, "max-rules",
            .refused("max-rules")
        ),
        ("an app whose applinks service is off", ["/news/*"], news, "applinks-disabled", .notApplicable),
        ("an Android app that takes another app's rules", ["/shop/clip/*"], clip, "rules-from", .notApplicable),
        (
            "an app without a build for the target's environment", ["/shop/beta/*"], beta, "environment-isolation",
            .refused("environment-isolation")
        ),
        ("a rule breaking a golden URL", ["/shop/legal/*"], shop, "expectation-broken", .refused("expectation-broken")),
        ("a rule opening a protected path", ["/shop/admin/*"], shop, "protected-path", .refused("protected-path")),
    ]

    static let clip = "com.example.shop.clip"
    static let clipKey = (0..<32).map { String(format: "%02X", $0) }.joined(separator: ":")
    static let beta = "ABCDE12345.com.example.beta"

    /// Two environments; the team `shop` holds /shop on prod.example.com and / on its staging twin,
    /// with an app that takes rules, one (news) that has no applinks service, one (clip) that takes
    /// shop's rules, and one (beta) built for staging only. On prod, /shop/admin/* is protected and
    /// https://example.com/shop/legal/terms must open no app (an admin's golden URL).
    static func world(_ core: Core) async throws {
        try await core.run(EnvironmentsChange(names: ["staging", "prod"]))
        _ = try await AccountService(work: core.work, principal: core.admin, actor: core.actor)
            .createTeam(name: "shop", displayName: "Shop")
        try await core.run(
            AppChange(kind: .create(team: "shop", appID: shop, services: [.applinks], android: nil), ifMatch: nil))
        try await core.run(
            AppChange(kind: .create(team: "shop", appID: news, services: [.webcredentials], android: nil), ifMatch: nil)
        )
        try await core.run(
            AppChange(
                kind: .create(team: "shop", appID: clip, services: [.applinks], android: [clipKey], rulesFrom: shop),
                ifMatch: nil))
        try await core.run(
            AppChange(kind: .create(team: "shop", appID: beta, services: [.applinks], android: nil), ifMatch: nil))
        try await core.run(
            BuildsChange(
                appID: beta,
                items: [.init(environment: "staging", appID: beta + ".staging", playSigningAbsent: false)],
                ifMatch: nil))
        try await core.domain("staging.example.com", environment: "staging")
        try await core.domain("example.com", environment: "prod")
        try await core.grant("staging.example.com", "shop", ["/"])
        try await core.grant("example.com", "shop", ["/shop"])
        _ = try await GuardrailService(work: core.work, principal: core.admin, actor: core.actor)
            .put("example.com", .init(protectedPaths: ["/shop/admin/*"]), ifMatch: nil)
        _ = try await ExpectationService(work: core.work, principal: core.admin, actor: core.actor)
            .create(
                "example.com",
                ExpectationInput(url: "https://example.com/shop/legal/terms", kind: .opensNone, source: "draft"),
                team: "shop")
    }

    /// The refusal's name: its first field rule, or a policy's slug (a policy names no field).
    static func rulesRefusal(_ error: any Error) -> String? {
        guard let error = error as? ServiceError else { return "\(error)" }
        return error.errors.first?.rule ?? error.slug
    }

    @Test(arguments: cases.indices)
    func theRulesAPIsChangeAManifestAndAPromotionRefuseAlike(_ index: Int) async throws {
        let (name, paths, app, rule, imports) = Self.cases[index]
        try await TestDatabase.shared.withDatabase { url in
            try await TestDatabase.shared.withClient(url: url) { database in
                let core = Core(database: database)
                try await Self.world(core)

                // 1. The rules API's own change, on prod.
                var refused: String?
                do { try await core.run(core.rules("example.com", app, paths)) } catch {
                    refused = Self.rulesRefusal(error)
                }
                #expect(refused == rule, "the rules API, \(name)")

                // 2. A manifest listing the same rules for prod.
                let manifest = ManifestRequest(
                    apps: [
                        .init(
                            appID: app, services: app == Self.news ? [.webcredentials] : [.applinks],
                            pointer: "/apps/0", platform: app == Self.clip ? .android : .ios,
                            fingerprints: app == Self.clip ? [Self.clipKey] : [],
                            rulesFrom: app == Self.clip ? Self.shop : nil)
                    ],
                    domains: [
                        .init(
                            host: "example.com",
                            apps: [
                                .init(
                                    appID: app,
                                    rules: paths.map { .init(component: .object(["/": .string($0)])) },
                                    pointer: "/domains/0/apps/0")
                            ], pointer: "/domains/0")
                    ], publishReason: nil, environment: nil)
                var manifestRule: String?
                do {
                    _ = try await ManifestApply(
                        work: core.work,
                        pipeline: core.pipeline,
                        principal: core.admin, actor: core.actor, maxRulesPerTeam: 3
                    ).run(manifest, team: "shop", ifMatch: nil, dryRun: true)
                } catch let error as ServiceError {
                    manifestRule =
                        error.errors.first { $0.field.hasPrefix("/domains/0") }?.rule ?? Self.rulesRefusal(error)
                }
                #expect(manifestRule == rule, "a manifest, \(name)")

                // 3. An import of a file with the same rules into prod (planned: the same work,
                // rolled back).
                if case .notApplicable = imports {
                } else {
                    var imported: String?
                    do {
                        let plan = try await core.importPlan("example.com", app, paths)
                        if case .widensGrant = imports {
                            #expect(plan.grants.contains { $0.team == "shop" && $0.action == "widen" }, "\(name)")
                        }
                    } catch {
                        imported = Self.rulesRefusal(error)
                    }
                    if case .refused(let importRule) = imports {
                        #expect(imported == importRule, "an import, \(name)")
                    } else {
                        #expect(imported == nil, "an import, \(name)")
                    }
                }

                // 4. A promotion bringing the same rules from staging, where the team holds /.
                if app != Self.news && app != Self.clip {
                    try await core.run(core.rules("staging.example.com", app, paths).withBudget(10))
                    try await core.publish("staging.example.com")
                    let promotion = PromotionService(
                        work: core.work, publisher: core.publisher, principal: core.admin, actor: core.actor,
                        maxRulesPerTeam: 3, logger: core.logger)
                    var promotionRule: String?
                    do {
                        _ = try await promotion.plan(
                            .init(
                                from: "staging", to: "prod", domains: [], takeDrafts: false, apply: false, reason: nil))
                    } catch let error as ServiceError {
                        promotionRule = Self.rulesRefusal(error)
                        #expect(error.detail?.contains("example.com") == true && error.detail?.contains(app) == true)
                    }
                    #expect(promotionRule == rule, "a promotion, \(name)")
                }
            }
        }
    }

    /// Only an Android app follows another app's rules: creating an iOS app that would is a 422
    /// naming `/rulesFrom`, as updating one is, not the database's constraint as a 500.
    @Test func anIOSAppCreatedToFollowRulesIsRefusedByName() async throws {
        try await TestDatabase.shared.withDatabase { url in
            try await TestDatabase.shared.withClient(url: url) { database in
                let core = Core(database: database)
                try await Self.world(core)
                var refused: ServiceError?
                do {
                    try await core.run(
                        AppChange(
                            kind: .create(
                                team: "shop", appID: "ABCDE12345.com.example.follower", services: [.applinks],
                                android: nil, rulesFrom: Self.shop),
                            ifMatch: nil))
                } catch let error as ServiceError { refused = error }
                #expect(refused?.kind == .invalid)
                #expect(refused?.errors.map(\.field) == ["/rulesFrom"] && refused?.errors.first?.rule == "platform")
                let follower = try await core.work.read { try await $0.app(appID: "ABCDE12345.com.example.follower") }
                #expect(follower == nil, "nothing written")
            }
        }
    }
}

extension RuleSetChange {
    /// The same change under another team budget (the staging side of a promotion may hold more).
    func withBudget(_ budget: Int) -> RuleSetChange {
        RuleSetChange(
            host: host, appID: appID, ifMatch: ifMatch, action: action, maxRulesPerTeam: budget, edit: edit,
            manifestDecides: manifestDecides, fields: fields)
    }
}
