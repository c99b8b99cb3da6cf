import AASAKernel
import AASAModel
import AASARules
import AASAStore
import AASATestSupport
import Foundation
import Logging
import Testing

/// Issue 51, tests in the middle: the rules layer alone (the gate, each policy, the rule-write check,
/// grant coverage) judged on a template clone of PostgreSQL, with no service and no HTTP. The state
/// is written straight through AASAStore, as a service would have left it; the rules only read it.
/// One test at a time, so that its clones and pools leave PostgreSQL's connections to the rest.
@Suite(.serialized) struct RulesOnTheDatabaseTests {
    static let shop = "ABCDE12345.com.example.shop"
    static let actor = Actor(tokenID: nil, name: "rules test", team: nil, requestID: nil)

    /// Team `shop`, its app, example.com granted /shop to it, and `rules` for the app there.
    struct World: Sendable {
        var domain: DomainRecord
        var app: AppRecord
        var grant: GrantRecord
    }

    static func world(_ session: DBSession, rules: [String], protectedPaths: [String] = []) async throws -> World {
        let team = try await session.insertTeam(name: "shop", displayName: "Shop")
        let app = try #require(try await session.insertApp(appID: shop, teamID: team.id, services: [.applinks]))
        let domain = try await session.insertDomain(
            host: "example.com", aliases: [], variables: [], defaults: DomainDefaults(), webRoots: [])
        let grant = try await session.upsertGrant(
            domainID: domain.id, teamID: team.id, pathPrefixes: ["/shop"], services: [])
        try await save(rules, app: app, domain: domain, session: session)
        if !protectedPaths.isEmpty {
            _ = try await session.saveGuardrails(GuardrailRecord(domainID: domain.id, protectedPaths: protectedPaths))
        }
        return World(domain: domain, app: app, grant: grant)
    }

    static func save(_ paths: [String], app: AppRecord, domain: DomainRecord, session: DBSession) async throws {
        let current = try await session.ruleSet(domainID: domain.id, app: app)
        _ = try await session.saveRuleSet(
            domainID: domain.id, appPK: app.id, rules: paths.map(rule), previousVersion: current.version)
    }

    static func rule(_ path: String) -> StoredRule {
        StoredRule(id: UUID(), component: .object(["/": .string(path)]))
    }

    /// Runs `body` in a transaction on a fresh clone, rolled back afterwards.
    static func withSession(_ body: @Sendable (DBSession) async throws -> Void) async throws {
        try await TestDatabase.shared.withDatabase { url in
            try await TestDatabase.shared.withClient(url: url) { database in
                try await RequestWork(database: database, logger: Logger(label: "rules test")).transaction(
                    rollingBack: true
                ) { session in try await body(session) }
            }
        }
    }

    static func candidate(_ document: DomainDocument, _ world: World) -> PolicyCandidate {
        PolicyCandidate(
            stage: .draft, action: "rules.replace", domain: world.domain, document: document, bytes: document.bytes,
            actor: actor)
    }

    @Test func theGateRendersAValidDomain() async throws {
        try await Self.withSession { session in
            let world = try await Self.world(session, rules: ["/shop/*"])
            let document = try await DomainGate.check(session, domain: world.domain)
            let text = String(decoding: document.bytes, as: UTF8.self)
            #expect(text.contains(Self.shop) && text.contains("/shop/*"), "\(text)")
        }
    }

    @Test func theGateRefusesAnInvalidDocumentNamingThePointer() async throws {
        try await Self.withSession { session in
            let world = try await Self.world(session, rules: [])
            let current = try await session.ruleSet(domainID: world.domain.id, app: world.app)
            _ = try await session.saveRuleSet(
                domainID: world.domain.id, appPK: world.app.id,
                rules: [StoredRule(id: UUID(), component: .object(["/": .number("5")]))],
                previousVersion: current.version)
            do {
                _ = try await DomainGate.check(session, domain: world.domain)
                Issue.record("an invalid document passed the gate")
            } catch let error as ServiceError {
                #expect(error.kind == .invalid, "\(error)")
                #expect(error.errors.first?.field.hasPrefix("/applinks/details/0/components/0") == true, "\(error)")
            }
        }
    }

    @Test func theProtectedPathPolicyRefusesARuleThatOpensIt() async throws {
        try await Self.withSession { session in
            let world = try await Self.world(session, rules: ["/shop/*"], protectedPaths: ["/shop/admin/*"])
            let document = try await DomainGate.check(session, domain: world.domain)
            do {
                try await ProtectedPathPolicy().check(Self.candidate(document, world), session: session)
                Issue.record("a rule opening /shop/admin/* passed")
            } catch let error as ServiceError {
                #expect(error.slug == "protected-path" && error.overridable, "\(error)")
                #expect(error.detail?.contains("/shop/admin") == true, "\(String(describing: error.detail))")
            }
        }
    }

    @Test func theProtectedPathPolicyLetsARuleBesideItThrough() async throws {
        try await Self.withSession { session in
            let world = try await Self.world(session, rules: ["/shop/items/*"], protectedPaths: ["/shop/admin/*"])
            let document = try await DomainGate.check(session, domain: world.domain)
            try await ProtectedPathPolicy().check(Self.candidate(document, world), session: session)
            try await DomainPolicies.standard().check(Self.candidate(document, world), session: session)
        }
    }

    @Test func theJudgeRunsTheGateThenThePolicies() async throws {
        try await Self.withSession { session in
            let world = try await Self.world(session, rules: ["/shop/*"], protectedPaths: ["/shop/admin/*"])
            do {
                _ = try await Judge(policies: .standard()).judge(
                    session, domain: world.domain, stage: .draft, action: "rules.replace", actor: Self.actor)
                Issue.record("the judge let a protected path open")
            } catch let error as ServiceError {
                #expect(error.slug == "protected-path", "\(error)")
            }
            _ = try await Judge(policies: DomainPolicies()).judge(
                session, domain: world.domain, stage: .draft, action: "rules.replace", actor: Self.actor)
        }
    }

    @Test func theRuleWriteCheckRefusesARuleOutsideTheGrant() async throws {
        try await Self.withSession { session in
            let world = try await Self.world(session, rules: [])
            let problem = try await RuleWriteCheck(maxRulesPerTeam: 10).problem(
                session, domain: world.domain, app: world.app, before: [],
                after: [Self.rule("/shop/a"), Self.rule("/blog/*")],
                fields: .init(app: "appID", domain: "host", rules: "/rules", rulePath: { "/rules/\($0)/~1" }))
            #expect(
                problem?.rule == "outside-grant" && problem?.field == "/rules/1/~1", "\(String(describing: problem))")
        }
    }

    @Test func theRuleWriteCheckHoldsTheTeamsBudget() async throws {
        try await Self.withSession { session in
            let world = try await Self.world(session, rules: [])
            let problem = try await RuleWriteCheck(maxRulesPerTeam: 2).problem(
                session, domain: world.domain, app: world.app, before: [],
                after: ["/shop/a", "/shop/b", "/shop/c"].map(Self.rule),
                fields: .init(app: "appID", domain: "host", rules: "/rules", rulePath: { "/rules/\($0)/~1" }))
            #expect(problem?.rule == "max-rules", "\(String(describing: problem))")
            let within = try await RuleWriteCheck(maxRulesPerTeam: 3).problem(
                session, domain: world.domain, app: world.app, before: [],
                after: ["/shop/a", "/shop/b", "/shop/c"].map(Self.rule),
                fields: .init(app: "appID", domain: "host", rules: "/rules", rulePath: { "/rules/\($0)/~1" }))
            #expect(within == nil, "\(String(describing: within))")
        }
    }

    @Test func theRuleWriteCheckNeedsApplinks() async throws {
        try await Self.withSession { session in
            let world = try await Self.world(session, rules: [])
            var app = world.app
            app.services = [.webcredentials]
            let problem = try await RuleWriteCheck(maxRulesPerTeam: 10).problem(
                session, domain: world.domain, app: app, before: [], after: [Self.rule("/shop/a")],
                fields: .init(app: "appID", domain: "host", rules: "/rules", rulePath: { "/rules/\($0)/~1" }))
            #expect(problem?.rule == "applinks-disabled" && problem?.field == "appID", "\(String(describing: problem))")
        }
    }

    @Test func grantCoverageTellsACatchAllFromAPrefix() async throws {
        try await Self.withSession { session in
            let world = try await Self.world(session, rules: [])
            #expect(GrantCoverage.catchAll(Self.rule("/*"), domain: world.domain) != nil)
            #expect(GrantCoverage.catchAll(Self.rule("/shop/*"), domain: world.domain) == nil)
            let problem = GrantCoverage.problem(
                [Self.rule("/*")], grant: world.grant, team: "shop", domain: world.domain, field: { "/rules/\($0)" })
            #expect(problem?.rule == "catch-all", "\(String(describing: problem))")
            #expect(
                GrantCoverage.firstRuleOutside(
                    ["/shop/a", "/shop/b/*"].map(Self.rule), prefixes: ["/shop"], defaults: DomainDefaults()) == nil)
        }
    }
}
