import AASAModel
import AASAStore
import AASATestSupport
import Foundation
import Logging
import Testing

@testable import AASACore

/// Issue 40, tests in the middle: the core's services called directly on a real PostgreSQL (a clone
/// of the migrated template), no HTTP. Each composite writer (a manifest, a promotion) refuses what
/// the rules API's own change refuses, with the same rule name: the three go through one check.
@Suite struct CompositeWritersTests {
    static let shop = "ABCDE12345.com.example.shop"
    static let news = "ABCDE12345.com.example.news"

    /// The core as the server wires it, on one database, acting as an admin.
    struct Core {
        let database: Database
        let logger = Logger(label: "core test")
        let admin = Principal(tokenID: UUID(), tokenName: "core test", teamID: nil, teamName: nil, scopes: [.admin])
        var actor: Actor { Actor(admin, requestID: nil) }
        var work: RequestWork { RequestWork(database: database, logger: logger) }
        var publisher: Publisher { Publisher(database: database, served: nil, webRootBases: []) }

        @discardableResult
        func run<Change: DomainChange>(_ change: Change) async throws -> Changed<Change.Output> {
            try await DomainChangePipeline(database: database, publisher: publisher, served: WellKnownFiles())
                .run(change, principal: admin, actor: actor, logger: logger)
        }

        func domain(_ host: String, environment: String? = nil) async throws {
            let settings = try DomainSettings(
                host: host, aliases: nil, variables: nil, defaults: nil, webRoots: nil, autoPublish: nil,
                legacyRootPath: nil, current: nil, bases: [], environment: environment)
            try await run(DomainSettingsChange(kind: .create(host: host, settings: settings), ifMatch: nil))
        }

        func grant(_ host: String, _ team: String, _ prefixes: [String]) async throws {
            try await run(GrantChange(host: host, team: team, kind: .put(prefixes, services: []), ifMatch: nil))
        }

        func rules(_ host: String, _ appID: String, _ paths: [String]) -> RuleSetChange {
            RuleSetChange(
                host: host, appID: appID, ifMatch: nil, action: "rules.replace", maxRulesPerTeam: 3,
                edit: { _ in paths.map { StoredRule(id: UUID(), component: .object(["/": .string($0)])) } },
                bodyField: { _, _ in nil })
        }

        func publish(_ host: String) async throws {
            _ = try await publisher.publish(host: host, reason: "test", source: .draft, actor: actor, logger: logger)
        }
    }

    /// The refusals every writer must give, each as (what the team's rules on the target are, the rule).
    static let cases: [(name: String, paths: [String], app: String, rule: String)] = [
        ("a rule outside the team's grant", ["/blog/*"], shop, "outside-grant"),
        ("a catch-all from a team granted less than /", ["/*"], shop, "catch-all"),
        ("more rules than the team's budget", ["/shop/a", "/shop/b", "/shop/c", "/shop/d"], shop, "max-rules"),
        ("an app whose applinks service is off", ["/news/*"], news, "applinks-disabled"),
    ]

    /// Two environments; the team `shop` holds /shop on prod.example.com and / on its staging twin,
    /// with an app that takes rules and one (news) that has no applinks service.
    static func world(_ core: Core) async throws {
        try await core.run(EnvironmentsChange(names: ["staging", "prod"]))
        _ = try await AccountService(work: core.work, principal: core.admin, actor: core.actor)
            .createTeam(name: "shop", displayName: "Shop")
        try await core.run(
            AppChange(kind: .create(team: "shop", appID: shop, services: [.applinks], android: nil), ifMatch: nil))
        try await core.run(
            AppChange(kind: .create(team: "shop", appID: news, services: [.webcredentials], android: nil), ifMatch: nil)
        )
        try await core.domain("staging.example.com", environment: "staging")
        try await core.domain("example.com", environment: "prod")
        try await core.grant("staging.example.com", "shop", ["/"])
        try await core.grant("example.com", "shop", ["/shop"])
    }

    static func rulesRefusal(_ error: any Error) -> String? {
        (error as? ServiceError)?.errors.first?.rule
    }

    @Test(arguments: cases.indices)
    func theRulesAPIsChangeAManifestAndAPromotionRefuseAlike(_ index: Int) async throws {
        let (name, paths, app, rule) = Self.cases[index]
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
                            appID: app, services: app == Self.shop ? [.applinks] : [.webcredentials], pointer: "/apps/0"
                        )
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
                        pipeline: DomainChangePipeline(
                            database: database, publisher: core.publisher, served: WellKnownFiles()),
                        principal: core.admin, actor: core.actor, maxRulesPerTeam: 3
                    ).run(manifest, team: "shop", ifMatch: nil, dryRun: true)
                } catch let error as ServiceError {
                    manifestRule =
                        error.errors.first { $0.field.hasPrefix("/domains/0") }?.rule ?? error.errors.first?.rule
                }
                #expect(manifestRule == rule, "a manifest, \(name)")

                // 3. A promotion bringing the same rules from staging, where the team holds /.
                if app == Self.shop {
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
                        promotionRule = error.errors.first?.rule
                        #expect(error.detail?.contains("example.com") == true && error.detail?.contains(app) == true)
                    }
                    #expect(promotionRule == rule, "a promotion, \(name)")
                }
            }
        }
    }
}

extension RuleSetChange {
    /// The same change under another team budget (the staging side of a promotion may hold more).
    func withBudget(_ budget: Int) -> RuleSetChange {
        RuleSetChange(
            host: host, appID: appID, ifMatch: ifMatch, action: action, maxRulesPerTeam: budget, edit: edit,
            bodyField: bodyField, manifestDecides: manifestDecides, fields: fields)
    }
}
