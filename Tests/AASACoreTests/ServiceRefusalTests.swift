import AASAModel
import AASAStore
import AASATestSupport
import Foundation
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServices

/// Issue 51, tests in the middle: each service's refusals called directly on a real PostgreSQL (a
/// clone of the migrated template per test), with no HTTP in between. Each test asserts the kind of
/// refusal, the field and rule that name it where it has them, and that it wrote nothing (no audit
/// row, the state as it was). One test at a time: each clones a database and opens a pool, and the
/// whole suite runs beside the rest, whose servers need PostgreSQL's connections more.
@Suite(.serialized) struct ServiceRefusalTests {
    static let shop = "ABCDE12345.com.example.shop"
    static let news = "ABCDE12345.com.example.news"
    static let android = "com.example.shop.android"
    static let key = (0..<32).map { String(format: "%02X", $0) }.joined(separator: ":")

    /// Team `shop` with an iOS app on example.com, granted /shop, with one rule.
    static func world(_ core: Core) async throws -> TeamRecord {
        let shop = try await core.team("shop")
        try await core.app(Self.shop, team: "shop")
        try await core.domain("example.com")
        try await core.grant("example.com", "shop", ["/shop"])
        try await core.run(core.rules("example.com", Self.shop, ["/shop/*"]))
        return shop
    }

    // MARK: - Accounts

    @Test func aTeamNameIsTakenOnce() async throws {
        try await Core.run { core in
            _ = try await core.team("shop")
            let before = try await core.auditCount()
            let refused = await refusal { _ = try await core.team("shop") }
            #expect(refused?.kind == .conflict, "\(String(describing: refused))")
            #expect(try await core.auditCount() == before)
        }
    }

    @Test func onlyAnAdminCreatesATeam() async throws {
        try await Core.run { core in
            let shop = try await core.team("shop")
            let token = core.token(of: shop, [.write])
            let refused = await refusal {
                _ = try await AccountService(work: core.work, principal: token, actor: Actor(token, requestID: nil))
                    .createTeam(name: "other", displayName: "Other")
            }
            #expect(refused?.kind == .forbidden, "\(String(describing: refused))")
        }
    }

    @Test func aTeamTokenCannotSeeAnotherTeamToMakeItATokenThere() async throws {
        try await Core.run { core in
            let shop = try await core.team("shop")
            _ = try await core.team("news")
            let token = core.token(of: shop, [.write])
            let refused = await refusal {
                _ = try await AccountService(work: core.work, principal: token, actor: Actor(token, requestID: nil))
                    .createToken(team: "news", tokenName: "ci", scopes: [.write], expiresAt: nil)
            }
            #expect(
                refused?.kind == .notFound, "another team's existence is not revealed: \(String(describing: refused))")
        }
    }

    @Test func aTeamTokenCannotGiveTheAdminScope() async throws {
        try await Core.run { core in
            let shop = try await core.team("shop")
            let token = core.token(of: shop, [.write])
            let before = try await core.auditCount()
            let refused = await refusal {
                _ = try await AccountService(work: core.work, principal: token, actor: Actor(token, requestID: nil))
                    .createToken(team: "shop", tokenName: "ci", scopes: [.admin], expiresAt: nil)
            }
            #expect(refused?.kind == .forbidden, "\(String(describing: refused))")
            #expect(try await core.auditCount() == before)
        }
    }

    // MARK: - Apps

    @Test func anAppIDIsRegisteredOnce() async throws {
        try await Core.run { core in
            _ = try await Self.world(core)
            let refused = await refusal { try await core.app(Self.shop, team: "shop") }
            #expect(
                refused?.kind == .conflict && refused?.errors.first?.rule == "unique", "\(String(describing: refused))")
        }
    }

    @Test func aReadTokenRegistersNoApp() async throws {
        try await Core.run { core in
            let shop = try await core.team("shop")
            let refused = await refusal {
                try await core.run(
                    AppChange(
                        kind: .create(team: "shop", appID: Self.news, services: [.applinks], android: nil), ifMatch: nil
                    ),
                    as: core.token(of: shop, [.read]))
            }
            #expect(refused?.kind == .forbidden, "\(String(describing: refused))")
        }
    }

    @Test func anAppKeepsApplinksWhileItsRulesUseIt() async throws {
        try await Core.run { core in
            _ = try await Self.world(core)
            let before = try await core.auditCount()
            let refused = await refusal {
                try await core.run(
                    AppChange(
                        kind: .update(appID: Self.shop, team: nil, services: [.webcredentials], fingerprints: nil),
                        ifMatch: nil))
            }
            #expect(
                refused?.kind == .invalid && refused?.errors.first?.rule == "applinks-in-use",
                "\(String(describing: refused))")
            #expect(try await core.auditCount() == before)
        }
    }

    @Test func anAppFollowedByAnotherIsNotDeleted() async throws {
        try await Core.run { core in
            _ = try await Self.world(core)
            try await core.run(
                AppChange(
                    kind: .create(
                        team: "shop", appID: Self.android, services: [.applinks], android: [Self.key],
                        rulesFrom: Self.shop),
                    ifMatch: nil))
            let refused = await refusal { try await core.run(AppChange(kind: .delete(appID: Self.shop), ifMatch: nil)) }
            #expect(
                refused?.kind == .conflict && refused?.errors.first?.rule == "rules-from",
                "\(String(describing: refused))")
        }
    }

    @Test func onlyAnAndroidAppHasFingerprints() async throws {
        try await Core.run { core in
            _ = try await Self.world(core)
            let refused = await refusal {
                try await core.run(
                    AppChange(
                        kind: .update(appID: Self.shop, team: nil, services: nil, fingerprints: [Self.key]),
                        ifMatch: nil))
            }
            #expect(
                refused?.kind == .invalid && refused?.errors.first?.field == "/fingerprints",
                "\(String(describing: refused))")
        }
    }

    // MARK: - Domains and grants

    @Test func aHostIsADomainOnce() async throws {
        try await Core.run { core in
            try await core.domain("example.com")
            let refused = await refusal { try await core.domain("example.com") }
            #expect(refused?.kind == .conflict, "\(String(describing: refused))")
        }
    }

    @Test func aGrantNamesATeamThatExists() async throws {
        try await Core.run { core in
            try await core.domain("example.com")
            let before = try await core.auditCount()
            let refused = await refusal { try await core.grant("example.com", "nobody", ["/"]) }
            #expect(refused != nil && refused?.kind != .internal, "\(String(describing: refused))")
            #expect(try await core.auditCount() == before)
        }
    }

    @Test func aTeamTokenGrantsNothing() async throws {
        try await Core.run { core in
            let shop = try await Self.world(core)
            let refused = await refusal {
                try await core.run(
                    GrantChange(host: "example.com", team: "shop", kind: .put(["/"], services: []), ifMatch: nil),
                    as: core.token(of: shop, [.write]))
            }
            #expect(refused?.kind == .forbidden, "\(String(describing: refused))")
        }
    }

    // MARK: - Rules

    @Test func aStaleIfMatchWritesNoRule() async throws {
        try await Core.run { core in
            _ = try await Self.world(core)
            let before = try await core.auditCount()
            let refused = await refusal {
                try await core.run(
                    RuleSetChange(
                        host: "example.com", appID: Self.shop, ifMatch: "\"999\"", action: "rules.replace",
                        maxRulesPerTeam: 3,
                        edit: .replace([StoredRule(id: UUID(), component: .object(["/": .string("/shop/new/*")]))])))
            }
            #expect(refused?.kind == .preconditionFailed, "\(String(describing: refused))")
            #expect(try await core.auditCount() == before)
            let rules = try await RegistryReads(work: core.work, principal: core.admin).rules(
                "example.com", appID: Self.shop)
            #expect(rules.set.rules.map { $0.component.objectValue?["/"]?.stringValue } == ["/shop/*"])
        }
    }

    @Test func deletingARuleThatIsNotThereIs404() async throws {
        try await Core.run { core in
            _ = try await Self.world(core)
            let refused = await refusal {
                try await core.run(
                    RuleSetChange(
                        host: "example.com", appID: Self.shop, ifMatch: nil, action: "rules.delete", maxRulesPerTeam: 3,
                        edit: .delete(UUID())))
            }
            #expect(refused?.kind == .notFound, "\(String(describing: refused))")
        }
    }

    @Test func anAppendedRuleOutsideTheGrantNamesTheBody() async throws {
        try await Core.run { core in
            _ = try await Self.world(core)
            let refused = await refusal {
                try await core.run(
                    RuleSetChange(
                        host: "example.com", appID: Self.shop, ifMatch: nil, action: "rules.append", maxRulesPerTeam: 3,
                        edit: .append(StoredRule(id: UUID(), component: .object(["/": .string("/blog/*")])))))
            }
            #expect(refused?.kind == .invalid, "\(String(describing: refused))")
            #expect(refused?.errors.first?.rule == "outside-grant")
            #expect(
                refused?.errors.first?.field == "/~1", "the appended rule is the body: \(String(describing: refused))")
        }
    }

    @Test func aReplacedRuleOutsideTheGrantNamesItsIndex() async throws {
        try await Core.run { core in
            _ = try await Self.world(core)
            let refused = await refusal {
                try await core.run(
                    RuleSetChange(
                        host: "example.com", appID: Self.shop, ifMatch: nil, action: "rules.replace",
                        maxRulesPerTeam: 3,
                        edit: .replace([
                            StoredRule(id: UUID(), component: .object(["/": .string("/shop/a")])),
                            StoredRule(id: UUID(), component: .object(["/": .string("/blog/*")])),
                        ])))
            }
            #expect(refused?.errors.first?.field == "/rules/1/~1", "\(String(describing: refused))")
        }
    }

    // MARK: - Order, environments, builds, team deletion

    @Test func anOrderNamesOnlyTheDomainsApps() async throws {
        try await Core.run { core in
            _ = try await Self.world(core)
            let refused = await refusal {
                try await core.run(
                    OrderChange(host: "example.com", apps: ["ABCDE12345.com.example.nobody"], ifMatch: nil))
            }
            #expect(refused?.kind == .invalid, "\(String(describing: refused))")
        }
    }

    @Test func anEnvironmentADomainIsInStays() async throws {
        try await Core.run { core in
            try await core.run(EnvironmentsChange(names: ["staging", "prod"]))
            try await core.domain("example.com", environment: "prod")
            let before = try await core.auditCount()
            let refused = await refusal { try await core.run(EnvironmentsChange(names: ["staging"])) }
            #expect(refused != nil && refused?.kind != .internal, "\(String(describing: refused))")
            #expect(try await core.auditCount() == before)
        }
    }

    @Test func aBuildNamesAnEnvironmentThatExists() async throws {
        try await Core.run { core in
            _ = try await Self.world(core)
            let refused = await refusal {
                try await core.run(
                    BuildsChange(
                        appID: Self.shop,
                        items: [.init(environment: "mars", appID: Self.shop + ".mars", playSigningAbsent: false)],
                        ifMatch: nil))
            }
            #expect(refused?.kind == .invalid, "\(String(describing: refused))")
            #expect(refused?.errors.first?.field.hasPrefix("/builds/0") == true, "\(String(describing: refused))")
        }
    }

    @Test func theSameBuildsAgainWriteNoAuditRow() async throws {
        try await Core.run { core in
            try await core.run(EnvironmentsChange(names: ["staging", "prod"]))
            _ = try await core.team("shop")
            try await core.app(Self.shop, team: "shop")
            let builds = BuildsChange(
                appID: Self.shop,
                items: [.init(environment: "staging", appID: Self.shop + ".staging", playSigningAbsent: false)],
                ifMatch: nil)
            try await core.run(builds)
            let before = try await core.auditCount()
            try await core.run(builds)
            #expect(try await core.auditCount() == before)
        }
    }

    @Test func aTeamWithAppsIsNotDeleted() async throws {
        try await Core.run { core in
            _ = try await Self.world(core)
            let refused = await refusal { try await core.run(TeamDeletion(team: "shop", ifMatch: nil)) }
            #expect(refused?.kind == .conflict, "\(String(describing: refused))")
        }
    }

    // MARK: - Guardrails, golden URLs, webhooks, OIDC

    @Test func aProtectedPathIsAPattern() async throws {
        try await Core.run { core in
            try await core.domain("example.com")
            let refused = await refusal {
                _ = try await GuardrailService(work: core.work, principal: core.admin, actor: core.actor)
                    .put("example.com", .init(protectedPaths: ["no-slash"]), ifMatch: nil)
            }
            #expect(refused?.kind == .invalid, "\(String(describing: refused))")
            #expect(refused?.errors.first?.field.hasPrefix("/protectedPaths") == true, "\(String(describing: refused))")
        }
    }

    @Test func aGoldenURLIsOnItsDomain() async throws {
        try await Core.run { core in
            _ = try await Self.world(core)
            let refused = await refusal {
                _ = try await ExpectationService(work: core.work, principal: core.admin, actor: core.actor)
                    .create(
                        "example.com",
                        ExpectationInput(url: "https://other.example/shop/x", kind: .opensNone, source: "draft"),
                        team: "shop")
            }
            #expect(refused?.kind == .invalid, "\(String(describing: refused))")
        }
    }

    @Test func aWebhookIsHTTPSOffLoopback() async throws {
        try await Core.run { core in
            let refused = await refusal {
                _ = try await WebhookService(
                    work: core.work, principal: core.admin, actor: core.actor, fetch: FetchConfig()
                )
                .create(.init(url: "http://hooks.example.com/x", events: ["domain.publish"]))
            }
            #expect(
                refused?.kind == .invalid && refused?.errors.first?.field == "/url", "\(String(describing: refused))")
        }
    }

    @Test func aWebhookNamesKnownEvents() async throws {
        try await Core.run { core in
            let refused = await refusal { _ = try WebhookService.checkedEvents(["domain.exploded"]) }
            #expect(refused?.kind == .invalid, "\(String(describing: refused))")
        }
    }

    @Test func anOIDCIssuerIsAnHTTPSURL() async throws {
        let refused = await refusal {
            try OIDCTrustService.checkIssuer(name: "ci", issuer: "http://token.example/", audience: "aasa")
        }
        #expect(refused?.errors.map(\.rule) == ["https-url"], "\(String(describing: refused))")
    }

    // MARK: - Publishing, promotion, composite writers

    @Test func publishingAnUnknownDomainIs404() async throws {
        try await Core.run { core in
            let refused = await refusal { try await core.publish("nowhere.example") }
            #expect(refused?.kind == .notFound, "\(String(describing: refused))")
        }
    }

    @Test func aRollbackNamesARevisionThatExists() async throws {
        try await Core.run { core in
            _ = try await Self.world(core)
            try await core.publish("example.com")
            let refused = await refusal {
                _ = try await core.publisher.publish(
                    host: "example.com", reason: "back", source: .revision(.aasa, 7, team: nil), actor: core.actor,
                    logger: core.logger)
            }
            #expect(refused?.kind == .notFound, "\(String(describing: refused))")
        }
    }

    @Test func aPromotionGoesForward() async throws {
        try await Core.run { core in
            try await core.run(EnvironmentsChange(names: ["staging", "prod"]))
            let refused = await refusal {
                _ = try await PromotionService(
                    work: core.work, publisher: core.publisher, principal: core.admin, actor: core.actor,
                    maxRulesPerTeam: 3, logger: core.logger
                ).run(.init(from: "prod", to: "staging", domains: [], takeDrafts: false, apply: false))
            }
            #expect(
                refused?.kind == .invalid && refused?.errors.first?.rule == "order", "\(String(describing: refused))")
        }
    }

    @Test func aManifestAppliedOnAMovedStateIs412() async throws {
        try await Core.run { core in
            _ = try await Self.world(core)
            let manifest = ManifestRequest(
                apps: [.init(appID: Self.shop, services: [.applinks], pointer: "/apps/0")],
                domains: [], publishReason: nil, environment: nil)
            let before = try await core.auditCount()
            let refused = await refusal {
                _ = try await ManifestApply(
                    work: core.work,
                    pipeline: core.pipeline,
                    principal: core.admin, actor: core.actor, maxRulesPerTeam: 3
                ).run(manifest, team: "shop", ifMatch: "\"m-000000000000000000000000\"", dryRun: false)
            }
            #expect(refused?.kind == .preconditionFailed, "\(String(describing: refused))")
            #expect(try await core.auditCount() == before)
        }
    }

    @Test func anImportNeedsAnAdmin() async throws {
        try await Core.run { core in
            let shop = try await core.team("shop")
            let token = core.token(of: shop, [.write])
            let refused = await refusal {
                _ = try await ImportService(
                    work: core.work,
                    pipeline: core.pipeline,
                    principal: token, actor: Actor(token, requestID: nil), maxRulesPerTeam: 3, webRootBases: []
                ).run(
                    .init(
                        host: "example.com", aasa: Array(#"{"applinks":{"details":[]}}"#.utf8),
                        teamMap: ImportTeamMap([:]), webRoots: [], apply: true))
            }
            #expect(refused?.kind == .forbidden, "\(String(describing: refused))")
        }
    }

    @Test func anImportOfTheSameFileTwiceWritesNothingTheSecondTime() async throws {
        try await Core.run { core in
            _ = try await core.team("shop")
            let file = Array(
                #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.shop"],"components":[{"/":"/shop/*"}]}]}}"#
                    .utf8)
            let service = ImportService(
                work: core.work,
                pipeline: core.pipeline,
                principal: core.admin, actor: core.actor, maxRulesPerTeam: 3, webRootBases: [])
            let request = ImportService.Request(
                host: "example.com", aasa: file, teamMap: ImportTeamMap(["ABCDE12345": "shop"]), webRoots: [],
                apply: true)
            let first = try await service.run(request)
            #expect(first.changed)
            let audited = try await core.work.read { try await $0.listAudit(AuditFilter(limit: 1000)) }
            #expect(audited.contains { $0.action == "import.apply" })
            #expect(audited.contains { $0.action == "import.rules.replace" }, "each change's audit, under import.")
            let before = try await core.auditCount()
            let second = try await service.run(request)
            #expect(!second.changed)
            #expect(try await core.auditCount() == before)
        }
    }
}
