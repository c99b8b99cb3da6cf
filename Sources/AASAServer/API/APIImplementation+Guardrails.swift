import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import OpenAPIRuntime

extension APIImplementation {
    // MARK: Golden URLs

    func expectations(_ principal: Principal) -> ExpectationService {
        ExpectationService(work: work, principal: principal, actor: actor(principal))
    }

    func listExpectations(_ input: Operations.ListExpectations.Input) async throws -> Operations.ListExpectations.Output
    {
        let (host, items) = try await expectations(try principal()).list(input.path.host)
        return .ok(.init(body: .json(.init(host: host, items: items.map { Self.expectation($0, host: host) }))))
    }

    func createExpectation(_ input: Operations.CreateExpectation.Input) async throws
        -> Operations.CreateExpectation.Output
    {
        let body =
            switch input.body {
            case .json(let body): body
            }
        let record = try await expectations(try principal()).create(
            input.path.host, Self.expectationInput(body), team: body.team)
        let host = try Names.pathHost(input.path.host)
        return .created(
            .init(headers: .init(eTag: ETag.of(record.version)), body: .json(Self.expectation(record, host: host))))
    }

    func checkExpectations(_ input: Operations.CheckExpectations.Input) async throws
        -> Operations.CheckExpectations.Output
    {
        let check = try await ExpectationCheck.run(input.path.host, work: work, principal: try principal())
        func outcome(_ o: ExpectationCheck.Outcome) throws -> Components.Schemas.ExpectationOutcome {
            .init(holds: o.holds, appID: o.opener, rule: try o.rule.map { try OpenAPIObjectContainer(json: $0) })
        }
        let items = try check.results.map { r in
            Components.Schemas.ExpectationResult(
                expectation: Self.expectation(r.expectation, host: check.host), draft: try outcome(r.draft),
                published: try r.published.map(outcome))
        }
        return .ok(
            .init(
                body: .json(
                    .init(
                        host: check.host, revision: check.revision,
                        brokenInDraft: check.results.filter { !$0.draft.holds }.count,
                        brokenWhenPublished: check.results.filter { $0.published?.holds == false }.count,
                        items: items))))
    }

    func getExpectation(_ input: Operations.GetExpectation.Input) async throws -> Operations.GetExpectation.Output {
        let record = try await expectations(try principal()).get(input.path.host, id: input.path.expectationID)
        let host = try Names.pathHost(input.path.host)
        return .ok(
            .init(headers: .init(eTag: ETag.of(record.version)), body: .json(Self.expectation(record, host: host))))
    }

    func putExpectation(_ input: Operations.PutExpectation.Input) async throws -> Operations.PutExpectation.Output {
        let body =
            switch input.body {
            case .json(let body): body
            }
        let record = try await expectations(try principal()).replace(
            input.path.host, id: input.path.expectationID,
            Self.expectationInput(body), ifMatch: input.headers.ifMatch)
        let host = try Names.pathHost(input.path.host)
        return .ok(
            .init(headers: .init(eTag: ETag.of(record.version)), body: .json(Self.expectation(record, host: host))))
    }

    func deleteExpectation(_ input: Operations.DeleteExpectation.Input) async throws
        -> Operations.DeleteExpectation.Output
    {
        try await expectations(try principal()).delete(
            input.path.host, id: input.path.expectationID, ifMatch: input.headers.ifMatch)
        return .noContent(.init())
    }

    static func expectationInput(_ body: Components.Schemas.ExpectationInput) -> ExpectationInput {
        ExpectationInput(
            url: body.url, kind: ExpectationKind(rawValue: body.kind.rawValue) ?? .opens, appID: body.appID,
            source: body.source?.rawValue ?? "draft", description: body.description)
    }

    static func expectation(_ e: ExpectationRecord, host: String) -> Components.Schemas.Expectation {
        .init(
            id: e.id.uuidString.lowercased(), host: host, team: e.teamName, url: e.url,
            kind: .init(rawValue: e.kind) ?? .opens, appID: e.appID, source: .init(rawValue: e.source) ?? .draft,
            description: e.description, version: e.version, holdsInDraft: e.holdsInDraft,
            holdsWhenPublished: e.holdsWhenPublished, adminPinned: e.adminPinned, outOfGrant: e.outOfGrant,
            createdAt: e.createdAt, updatedAt: e.updatedAt)
    }

    // MARK: Guardrails

    func guardrails(_ principal: Principal) -> GuardrailService {
        GuardrailService(work: work, principal: principal, actor: actor(principal))
    }

    func getGuardrails(_ input: Operations.GetGuardrails.Input) async throws -> Operations.GetGuardrails.Output {
        let (_, record) = try await guardrails(try principal()).get(nil)
        return .ok(
            .init(headers: .init(eTag: ETag.of(record.version)), body: .json(Self.guardrails(record, host: nil))))
    }

    func putGuardrails(_ input: Operations.PutGuardrails.Input) async throws -> Operations.PutGuardrails.Output {
        let body =
            switch input.body {
            case .json(let body): body
            }
        let (_, record) = try await guardrails(try principal()).put(
            nil, Self.guardrailsInput(body), ifMatch: input.headers.ifMatch)
        return .ok(
            .init(headers: .init(eTag: ETag.of(record.version)), body: .json(Self.guardrails(record, host: nil))))
    }

    func getDomainGuardrails(_ input: Operations.GetDomainGuardrails.Input) async throws
        -> Operations.GetDomainGuardrails.Output
    {
        let (host, record) = try await guardrails(try principal()).get(input.path.host)
        return .ok(
            .init(headers: .init(eTag: ETag.of(record.version)), body: .json(Self.guardrails(record, host: host))))
    }

    func putDomainGuardrails(_ input: Operations.PutDomainGuardrails.Input) async throws
        -> Operations.PutDomainGuardrails.Output
    {
        let body =
            switch input.body {
            case .json(let body): body
            }
        let (host, record) = try await guardrails(try principal()).put(
            input.path.host, Self.guardrailsInput(body), ifMatch: input.headers.ifMatch)
        return .ok(
            .init(headers: .init(eTag: ETag.of(record.version)), body: .json(Self.guardrails(record, host: host))))
    }

    static func guardrailsInput(_ body: Components.Schemas.GuardrailsPut) -> GuardrailService.Input {
        .init(
            protectedPaths: body.protectedPaths, maxRulesPerTeam: body.maxRulesPerTeam.map(Int.init),
            maxBytesPerTeam: body.maxBytesPerTeam.map(Int.init))
    }

    static func guardrails(_ g: GuardrailRecord, host: String?) -> Components.Schemas.Guardrails {
        .init(
            host: host, protectedPaths: g.protectedPaths, maxRulesPerTeam: g.maxRulesPerTeam,
            maxBytesPerTeam: g.maxBytesPerTeam,
            version: g.version)
    }

    // MARK: The kill switch

    func suspensions(_ principal: Principal) -> SuspensionService {
        SuspensionService(pipeline: pipeline, principal: principal, actor: actor(principal), logger: logger)
    }

    func listSuspensions(_ input: Operations.ListSuspensions.Input) async throws -> Operations.ListSuspensions.Output {
        let items = try await reads(try principal()).suspensions(Self.suspensionScope(input.path.host))
        return .ok(.init(body: .json(.init(items: items.map(Self.suspension)))))
    }

    func suspendTeam(_ input: Operations.SuspendTeam.Input) async throws -> Operations.SuspendTeam.Output {
        let body =
            switch input.body {
            case .json(let body): body
            }
        let reason = body.reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty else {
            throw ServiceError.invalid(field: "/reason", rule: "non-empty", "say why the team is suspended")
        }
        let result = try await suspensions(try principal()).suspend(
            Self.suspensionScope(input.path.host), team: body.team, reason: reason)
        return .created(.init(body: .json(Self.suspensionResult(result))))
    }

    func resumeTeam(_ input: Operations.ResumeTeam.Input) async throws -> Operations.ResumeTeam.Output {
        let result = try await suspensions(try principal()).resume(
            Self.suspensionScope(input.path.host), team: input.path.team)
        return .ok(.init(body: .json(Self.suspensionResult(result))))
    }

    /// `*`, or the domain's host in punycode.
    static func suspensionScope(_ host: String) throws -> String {
        host == "*" ? "*" : try Names.pathHost(host)
    }

    static func suspension(_ s: SuspensionRecord) -> Components.Schemas.Suspension {
        .init(team: s.teamName, host: s.host ?? "*", reason: s.reason, createdBy: s.createdBy, createdAt: s.createdAt)
    }

    static func suspensionResult(_ r: SuspensionService.Result) -> Components.Schemas.SuspensionResult {
        .init(
            suspension: r.suspension.map(suspension),
            published: r.published.map {
                .init(
                    host: $0.host, revision: $0.primary.revision.number, created: $0.files.contains(where: \.created),
                    files: fileRevisions($0))
            })
    }
}
