import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import Hummingbird
import Logging
import Metrics

/// Authenticates `/v1/` requests from `Authorization: Bearer …` and hands the principal to the
/// handlers. A token the read model knows is answered from memory (`PrincipalCache`); otherwise
/// the request holds the pooled connection it authenticated on for its reads and writes.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let authenticator: Authenticator
    static let withoutBearer: Set<String> = ["/v1/oidc/token", "/v1/cli", "/v1/cli/aasactl"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard var state = RequestState.current else { return try await next(request, context) }
        guard request.uri.path.hasPrefix("/v1/") else { return try await next(request, context) }
        // The token exchange's credential is the ID token in its form, which it verifies itself; a
        // job downloads aasactl before it has any token.
        if Self.withoutBearer.contains(request.uri.path) { return try await next(request, context) }

        guard let header = request.headers[.authorization] else {
            Counter(label: "aasad_auth_failures_total", dimensions: [("reason", "missing")]).increment()
            throw ServiceError.unauthorized("send `Authorization: Bearer <token>`")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw ServiceError.unauthorized("the Authorization header must be `Bearer <token>`")
        }
        let bearer = String(parts[1])
        let query = request.uri.queryParameters
        if let (principal, synced) = await authenticator.cached(bearer: bearer) {
            // The read model knew the token (issue 43): no lease for authentication. The request's
            // reads and writes each take a pooled connection when they run (`RequestWork`), so a
            // read answered from memory holds none at all.
            state.principal = principal
            state.syncedGeneration = synced
            state.logger[metadataKey: "token_id"] = .string(principal.tokenID.uuidString.lowercased())
            state.override = try PolicyOverride.from(
                force: query["force"].map(String.init), reason: query["reason"].map(String.init), principal: principal)
            return try await RequestState.$current.withValue(state) { try await next(request, context) }
        }
        return try await authenticator.database.read(logger: state.logger) { session in
            do {
                state.principal = try await authenticator.authenticate(bearer: bearer, session: session)
            } catch let failure as Authenticator.Failure {
                Counter(label: "aasad_auth_failures_total", dimensions: [("reason", "\(failure)")]).increment()
                throw ServiceError.unauthorized(failure.message)
            }
            state.logger[metadataKey: "token_id"] = .string(state.principal!.tokenID.uuidString.lowercased())
            state.override = try PolicyOverride.from(
                force: query["force"].map(String.init), reason: query["reason"].map(String.init),
                principal: state.principal!)
            state.session = DBSession(connection: session.connection, logger: state.logger, deadline: session.deadline)
            return try await RequestState.$current.withValue(state) {
                try await next(request, context)
            }
        }
    }
}
