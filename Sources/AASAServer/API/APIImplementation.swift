import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
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
    /// The most webhooks one team (or the admins together) may keep.
    var maxWebhooksPerTeam = 20
    /// The names of the credential sets this server has (what a target may name).
    var credentialSets: Set<String> = []
    /// Fetches as Apple's fetchers do: the origin probe and CDN checks.
    let fetcher: OutboundClient
    /// One probe or CDN check per domain at a time, a few a minute.
    let fetchLimiter: FetchLimiter
    /// Google's Digital Asset Links API, and how long Google may lag a publish before `google.stale`.
    var google: (api: DigitalAssetLinksAPI, staleAfter: Duration)?
    /// The trusted OIDC issuers' keys, for `POST /v1/oidc/token` (one cache per process).
    var oidc: IDTokenVerifier?
    /// The console's sign-in providers by name (none without `AASA_CONSOLE_OIDC_FILE`).
    var consoleProviders: [String] = []

    var state: RequestState {
        RequestState.current ?? RequestState(requestID: "-", logger: Logger(label: "aasad"), principal: nil)
    }
    var logger: Logger { state.logger }

    func principal() throws -> Principal {
        guard let principal = state.principal else {
            throw ServiceError.unauthorized("send `Authorization: Bearer <token>`")
        }
        return principal
    }

    func requireAdmin(_ principal: Principal) throws {
        guard principal.isAdmin else { throw ServiceError.forbidden("this needs an admin token") }
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
