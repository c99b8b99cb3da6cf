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

/// The core as the server wires it, on one database, acting as an admin.
struct Core {
    /// A clone of the migrated template for `body`, dropped afterwards.
    static func run(_ body: @Sendable (Core) async throws -> Void) async throws {
        try await TestDatabase.shared.withDatabase { url in
            try await TestDatabase.shared.withClient(url: url) { database in try await body(Core(database: database)) }
        }
    }

    let database: Database
    let logger = Logger(label: "core test")
    let admin = Principal(tokenID: UUID(), tokenName: "core test", teamID: nil, teamName: nil, scopes: [.admin])
    var actor: Actor { Actor(admin, requestID: nil) }
    var work: RequestWork { RequestWork(database: database, logger: logger) }
    var publisher: Publisher { Publisher(database: database, served: nil, webRootBases: []) }
    var pipeline: DomainChangePipeline {
        DomainChangePipeline(database: database, publisher: publisher, served: WellKnownFiles())
    }

    @discardableResult
    func run<Change: DomainChange>(_ change: Change) async throws -> Changed<Change.Output> {
        try await run(change, as: admin)
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
            edit: .replace(paths.map { StoredRule(id: UUID(), component: .object(["/": .string($0)])) }))
    }

    /// An import's plan of an AASA file giving `appID` these rules (as `POST /v1/imports` without `apply`).
    func importPlan(_ host: String, _ appID: String, _ paths: [String]) async throws -> ImportService.Plan {
        let file: JSONValue = .object([
            "applinks": .object([
                "details": .array([
                    .object([
                        "appIDs": .array([.string(appID)]),
                        "components": .array(paths.map { .object(["/": .string($0)]) }),
                    ])
                ])
            ])
        ])
        return try await ImportService(
            work: work,
            pipeline: pipeline,
            principal: admin, actor: actor, maxRulesPerTeam: 3, webRootBases: []
        ).run(
            .init(
                host: host, aasa: JSONWriter().bytes(file), teamMap: ImportTeamMap(["ABCDE12345": "shop"]),
                webRoots: [], apply: false))
    }

    func publish(_ host: String) async throws {
        _ = try await publisher.publish(host: host, reason: "test", source: .draft, actor: actor, logger: logger)
    }
}

extension Core {
    /// A token of `team` with `scopes`, as the authenticator would make it.
    func token(of team: TeamRecord, _ scopes: Set<TokenScope>) -> Principal {
        Principal(tokenID: UUID(), tokenName: "ci", teamID: team.id, teamName: team.name, scopes: scopes)
    }

    func team(_ name: String) async throws -> TeamRecord {
        try await AccountService(work: work, principal: admin, actor: actor).createTeam(name: name, displayName: name)
    }

    /// An iOS app of `team` with the applinks service.
    func app(_ appID: String, team: String, services: [AppService] = [.applinks]) async throws {
        try await run(
            AppChange(kind: .create(team: team, appID: appID, services: services, android: nil), ifMatch: nil))
    }

    /// Runs `change` as `principal`.
    @discardableResult
    func run<Change: DomainChange>(_ change: Change, as principal: Principal) async throws -> Changed<Change.Output> {
        try await pipeline.run(change, principal: principal, actor: Actor(principal, requestID: nil), logger: logger)
    }

    /// The number of audit rows: a refusal adds none.
    func auditCount() async throws -> Int {
        try await work.read { session in
            try await session.listAudit(AuditFilter(limit: 1000)).count
        }
    }
}

/// The refusal `body` throws, nil when it does not refuse.
func refusal(_ body: () async throws -> Void) async -> ServiceError? {
    do {
        try await body()
        return nil
    } catch let error as ServiceError {
        return error
    } catch {
        Issue.record("not a ServiceError: \(error)")
        return nil
    }
}
