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

    /// Operations that change the app `{appID}` names and take a body.
    static let appChanges: [Route] = [
        .init(method: .patch, template: "/v1/apps/{appID}"),
        .init(method: .post, template: "/v1/apps/{appID}/keys/play-signing"),
        .init(method: .put, template: "/v1/apps/{appID}/builds"),
    ]

    let database: Database

    func check(_ request: Request) async throws {
        guard let state = RequestState.current, let principal = state.principal, !principal.isAdmin else { return }
        let path = request.uri.path
        for route in Self.adminOnly where route.method == request.method {
            guard let values = Self.matches(route.template, path) else { continue }
            // Another team is not revealed to exist, as its own routes answer (404, not 403).
            if route.template.hasPrefix("/v1/teams/{team}"), let team = values["team"], team != principal.teamName {
                throw ServiceError.notFound("no team \(team)")
            }
            throw ServiceError.forbidden("this needs an admin token")
        }
        for route in Self.appChanges where route.method == request.method {
            guard let values = Self.matches(route.template, path), let appID = values["appID"] else { continue }
            try await AppWriteAccess.check(
                appID, principal: principal, work: RequestWork(database: database, logger: state.logger))
            return
        }
    }

    /// The template's parameters, percent-decoded, when `path` is an instance of it.
    static func matches(_ template: String, _ path: String) -> [String: String]? {
        let want = template.split(separator: "/", omittingEmptySubsequences: false)
        let have = path.split(separator: "/", omittingEmptySubsequences: false)
        guard want.count == have.count else { return nil }
        var values: [String: String] = [:]
        for (w, h) in zip(want, have) {
            if w.hasPrefix("{") && w.hasSuffix("}") {
                guard !h.isEmpty else { return nil }
                values[String(w.dropFirst().dropLast())] = String(h).removingPercentEncoding ?? String(h)
            } else if w != h {
                return nil
            }
        }
        return values
    }
}
