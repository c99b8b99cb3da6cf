import AASAModel
import AASAStore
import Foundation
import Hummingbird
import Logging
import Metrics

/// Authenticates `/v1/` requests from `Authorization: Bearer …` and hands the principal to the
/// handlers, with the pooled connection it authenticated on: one lease per request, for its
/// authentication, reads and writes. Also refuses bodies above the size limit before anything
/// reads them.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let authenticator: Authenticator
    let maxBodyBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maxBodyBytes {
            throw HTTPError(.contentTooLarge)
        }
        if request.method != .get && request.method != .head {
            let body = try await request.collectBody(upTo: maxBodyBytes)
            // No field of this API takes null; the generated decoder would read it as "absent".
            if request.headers[.contentType]?.hasPrefix("application/json") == true,
               let parsed = try? JSONParser.parse(Array(body.readableBytesView)), let pointer = Self.firstNull(parsed.value, at: []) {
                throw APIProblem.badRequest("null is not a value here; leave the field out instead", field: pointer.description, rule: "type")
            }
        }
        guard var state = RequestState.current else { return try await next(request, context) }
        guard request.uri.path.hasPrefix("/v1/") else { return try await next(request, context) }

        guard let header = request.headers[.authorization] else {
            Counter(label: "aasad_auth_failures_total", dimensions: [("reason", "missing")]).increment()
            throw APIProblem.unauthorized("send `Authorization: Bearer <token>`")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIProblem.unauthorized("the Authorization header must be `Bearer <token>`")
        }
        let bearer = String(parts[1])
        return try await authenticator.database.read(logger: state.logger) { session in
            do {
                state.principal = try await authenticator.authenticate(bearer: bearer, session: session)
            } catch let failure as Authenticator.Failure {
                Counter(label: "aasad_auth_failures_total", dimensions: [("reason", "\(failure)")]).increment()
                throw APIProblem.unauthorized(failure.message)
            }
            state.logger[metadataKey: "token_id"] = .string(state.principal!.tokenID.uuidString.lowercased())
            state.session = DBSession(connection: session.connection, logger: state.logger)
            return try await RequestState.$current.withValue(state) {
                try await next(request, context)
            }
        }
    }

    static func firstNull(_ value: JSONValue, at path: [String]) -> JSONPointer? {
        switch value {
        case .null: return JSONPointer(tokens: path)
        case .array(let items):
            for (i, item) in items.enumerated() { if let p = firstNull(item, at: path + [String(i)]) { return p } }
        case .object(let object):
            for member in object { if let p = firstNull(member.value, at: path + [member.key]) { return p } }
        default: break
        }
        return nil
    }
}
