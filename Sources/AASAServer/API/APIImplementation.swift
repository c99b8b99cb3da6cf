import AASAAPI
import AASAModel
import AASAStore
import Foundation
import Logging

/// The generated `APIProtocol`, one extension per tag (`APIImplementation+Teams.swift`, …).
/// Every write runs in one transaction with its audit event; every change that touches a domain
/// passes `DomainGate` before it commits.
struct APIImplementation: APIProtocol {
    let services: ServiceSet
    let metrics: MetricsExport
    let served: WellKnownFiles
    let publisher: Publisher
    let pipeline: DomainChangePipeline
    let webRootBases: [String]
    let maxRulesPerTeamPerDomain: Int
    /// Fetches as Apple's fetchers do: the origin probe and CDN checks.
    let fetcher: AppleFetcher
    /// One probe or CDN check per domain at a time, a few a minute.
    let fetchLimiter: FetchLimiter

    var state: RequestState {
        RequestState.current ?? RequestState(requestID: "-", logger: Logger(label: "aasad"), principal: nil)
    }
    var logger: Logger { state.logger }

    func principal() throws -> Principal {
        guard let principal = state.principal else {
            throw APIProblem.unauthorized("send `Authorization: Bearer <token>`")
        }
        return principal
    }

    func requireAdmin(_ principal: Principal) throws {
        guard principal.isAdmin else { throw APIProblem.forbidden("this needs an admin token") }
    }

    /// Teams and tokens, as this caller.
    func accounts(_ principal: Principal) -> AccountService {
        AccountService(work: work, principal: principal, actor: actor(principal))
    }

    var work: RequestWork { services.work(logger) }

    /// Runs a change to domains through the one pipeline (authorize, lock, If-Match, apply,
    /// validate, policies, audit, commit, auto-publish).
    func change<Change: DomainChange>(_ change: Change) async throws -> Changed<Change.Output> {
        let principal = try principal()
        return try await pipeline.run(change, principal: principal, actor: actor(principal), logger: logger)
    }

    /// Who makes this request's changes, with the admin override it carries (if any).
    func actor(_ principal: Principal) -> Actor {
        Actor(principal, requestID: state.requestID, override: state.override)
    }

    /// Every read, as this caller (`Services/RegistryReads.swift`).
    func reads(_ principal: Principal) -> RegistryReads {
        RegistryReads(work: work, principal: principal)
    }
}

/// Versions as ETags, and the `If-Match` check every write makes before changing anything.
enum ETag {
    static func of(_ version: Int64) -> String { "\"\(version)\"" }

    static func check(_ ifMatch: String?, version: Int64) throws {
        try check(ifMatch, current: of(version))
    }

    /// `If-Match` against any current tag (a version, or a manifest's state tag).
    static func check(_ ifMatch: String?, current: String) throws {
        guard let ifMatch else { return }
        guard ifMatch.utf8.count <= 100 else {
            throw APIProblem.badRequest("If-Match is at most 100 characters", field: "If-Match", rule: "maxLength")
        }
        let tags = ifMatch.split(separator: ",").map { tag -> String in
            var t = tag.trimmingCharacters(in: .whitespaces)
            if t.hasPrefix("W/") { t.removeFirst(2) }
            return t
        }
        if tags.contains("*") || tags.contains(current) { return }
        throw APIProblem.preconditionFailed(current: current)
    }
}

/// Names in paths and bodies, checked the same way everywhere.
enum Names {
    static func teamProblem(_ name: String) -> String? {
        let ok =
            !name.isEmpty && name.utf8.count <= 63
            && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
            && name.utf8.first != 0x2D
        return ok ? nil : "a team name is 1 to 63 lower-case letters, digits and hyphens, not starting with a hyphen"
    }

    /// The punycode form of a host given in a path; a host that cannot be one is simply not found.
    static func pathHost(_ host: String) throws -> String {
        guard let normalized = try? HostName.normalized(host) else { throw APIProblem.notFound("no domain \(host)") }
        return normalized
    }

    /// A `limit` query parameter within the bounds openapi.yaml declares (the generated code does not check them).
    static func limit(_ value: Int?, default fallback: Int, maximum: Int = 500) throws -> Int {
        guard let value else { return fallback }
        guard (1...maximum).contains(value) else {
            throw APIProblem.badRequest("limit is between 1 and \(maximum)", field: "limit", rule: "range")
        }
        return value
    }

    /// A revision page's `before` (openapi.yaml's minimum 1; the generated code does not check it).
    static func before(_ value: Int32?) throws -> Int? {
        guard let value else { return nil }
        guard value >= 1 else {
            throw APIProblem.badRequest("before is a revision number, 1 or more", field: "before", rule: "minimum")
        }
        return Int(value)
    }

    /// A display name or token name within openapi.yaml's `maxLength` (200 characters).
    static func displayName(_ name: String, field: String) throws -> String {
        guard name.count <= 200 else {
            throw APIProblem.badRequest("a name is at most 200 characters", field: field, rule: "maxLength")
        }
        return name
    }

    static func uuid(_ string: String, what: String) throws -> UUID {
        guard let id = UUID(uuidString: string) else { throw APIProblem.notFound("no \(what) \(string)") }
        return id
    }
}
