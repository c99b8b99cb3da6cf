import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import HTTPTypes
import Hummingbird

/// The refusals a request body cannot change, made before the body is parsed (issue 49): a team
/// token on a route only an admin may call, and a token that may not change the app a route names.
/// The services refuse the same requests again where they act; this only makes the refusal cheap.
/// `HardeningRound5Tests.theEarlyAdminRefusalsAreTheContractsAdminOperations` holds `adminOnly` to
/// the operations openapi.yaml marks "(admin)".
///
/// A request is known by the route the router matched (its template), never by its path spelled
/// again here: a second list of spellings missed `POST /v1/teams/` (the router's own matching takes
/// a trailing slash) and any operation added later under `/v1/apps/{appID}`.
struct EarlyRefusal: Sendable {
    struct Route: Sendable, Hashable {
        var method: HTTPRequest.Method
        var template: String
    }

    /// Every admin-only operation that takes a body.
    static let adminOnly: [Route] = [
        .init(method: .post, template: "/v1/teams"),
        .init(method: .patch, template: "/v1/teams/{team}"),
        .init(method: .put, template: "/v1/teams/{team}/trust"),
        .init(method: .post, template: "/v1/imports"),
        .init(method: .put, template: "/v1/oidc/issuers/{name}"),
        .init(method: .put, template: "/v1/oidc/console-mappings"),
        .init(method: .put, template: "/v1/environments"),
        .init(method: .post, template: "/v1/domains"),
        .init(method: .patch, template: "/v1/domains/{host}"),
        .init(method: .put, template: "/v1/domains/{host}/grants/{team}"),
        .init(method: .put, template: "/v1/domains/{host}/order"),
        .init(method: .put, template: "/v1/guardrails"),
        .init(method: .put, template: "/v1/domains/{host}/guardrails"),
        .init(method: .post, template: "/v1/domains/{host}/suspensions"),
        .init(method: .put, template: "/v1/domains/{host}/targets"),
    ]

    /// Every operation under this prefix changes the app `{appID}` names: a body is parsed only for a
    /// token that may write that app.
    static let appPrefix = "/v1/apps/{appID}"

    let database: Database

    /// `route`: the template of the route the router matched (nil: none, and then no body is parsed).
    func check(_ request: Request, route: String, parameters: Parameters) async throws {
        guard let state = RequestState.current, let principal = state.principal, !principal.isAdmin else { return }
        func value(_ name: String) -> String? {
            parameters.get(name).map { $0.removingPercentEncoding ?? $0 }
        }
        if Self.adminOnly.contains(Route(method: request.method, template: route)) {
            // Another team is not revealed to exist, as its own routes answer (404, not 403).
            if route.hasPrefix("/v1/teams/{team}"), let team = value("team"), team != principal.teamName {
                throw ServiceError.notFound(Lookup.noTeam(team, principal))
            }
            throw ServiceError.forbidden("this needs an admin token")
        }
        if route == Self.appPrefix || route.hasPrefix(Self.appPrefix + "/"), let appID = value("appID") {
            try await AppWriteAccess.check(
                appID, principal: principal, work: RequestWork(database: database, logger: state.logger))
        }
    }
}
