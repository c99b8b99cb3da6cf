import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `Idempotency-Key` on a POST: the first successful answer is stored per token and key, and a
/// retry with the same key and the same request gets that answer again without running twice.
/// The same key with another request is refused (422); a retry while the first is still running
/// gets 409. A request that fails releases its key, so it can be retried.
///
/// The claim is committed before the handler runs and the answer after it: if the process dies
/// between the handler's commit and the answer being stored, the key stays claimed and a retry
/// gets 409 rather than a second write (safe, but the client must look at the resource).
///
/// The fingerprint covers the method, the path, the query (a `?dryRun=true` call never answers
/// for a real one) and the body. An answer that carries a token's secret is never stored: the
/// record keeps the answer without the secret, and a replay is 409 naming the token, because a
/// secret exists only in the one answer that created it (only its SHA-256 is kept anywhere).
struct IdempotencyMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    static let header = HTTPField.Name("Idempotency-Key")!
    static let replayed = HTTPField.Name("Idempotency-Replayed")!
    let database: Database

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard request.method == .post, let key = request.headers[Self.header],
            let state = RequestState.current, let principal = state.principal
        else {
            return try await next(request, context)
        }
        guard !key.isEmpty, key.utf8.count <= 255, key.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw ServiceError.badRequest(
                "Idempotency-Key must be 1 to 255 printable ASCII characters",
                field: "Idempotency-Key", rule: "format")
        }
        var request = request
        let body = try await request.collectBody(upTo: .max)
        var hasher = SHA256()
        hasher.update(data: Data("\(request.method.rawValue) \(request.uri.path)?\(request.uri.query ?? "")\n".utf8))
        hasher.update(data: Data(body.readableBytesView))
        let fingerprint = Array(hasher.finalize())

        let existing = try await RequestWork(database: database, logger: state.logger).read { session in
            try await session.claimIdempotencyKey(tokenID: principal.tokenID, key: key, fingerprint: fingerprint)
        }
        if let existing {
            guard existing.fingerprint == fingerprint else {
                throw ServiceError.invalid(
                    field: "Idempotency-Key", rule: "idempotency-key-reused",
                    "this key was used for a different request; use a new key for a new request")
            }
            guard let status = existing.status else {
                throw ServiceError.conflict(
                    """
                    a request with this Idempotency-Key is still running, or its answer was lost; look at the \
                    resource before retrying
                    """,
                    field: "Idempotency-Key", rule: "in-progress")
            }
            if existing.contentType == Self.withheld {
                throw Self.notReplayed(existing.body)
            }
            var headers = HTTPFields()
            if let contentType = existing.contentType { headers[.contentType] = contentType }
            if let etag = existing.etag { headers[.eTag] = etag }
            if let location = existing.location { headers[.location] = location }
            headers[Self.replayed] = "true"
            return Response(
                status: .init(code: status), headers: headers,
                body: .init(byteBuffer: ByteBuffer(bytes: existing.body)))
        }

        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            try? await release(principal: principal, key: key, state: state)
            throw error
        }
        guard (200..<300).contains(response.status.code) else {
            try? await release(principal: principal, key: key, state: state)
            return response
        }
        let collector = BodyCollector()
        try await response.body.write(collector)
        let bytes = collector.bytes
        let secretless = Self.withoutSecret(bytes)
        let stored = IdempotentResponse(
            fingerprint: fingerprint, status: Int(response.status.code),
            contentType: secretless == nil ? response.headers[.contentType] : Self.withheld,
            etag: response.headers[.eTag], location: response.headers[.location],
            body: secretless ?? bytes)
        try await RequestWork(database: database, logger: state.logger).read { session in
            try await session.completeIdempotencyKey(tokenID: principal.tokenID, key: key, response: stored)
        }
        var replay = response
        replay.body = .init(byteBuffer: ByteBuffer(bytes: bytes))
        return replay
    }

    /// The refusal to replay an answer whose secret was left out, naming what the key created: a
    /// token or a webhook (issue 41: a webhook's replay called it a token), and what to do.
    static func notReplayed(_ stored: [UInt8]) -> ServiceError {
        let object = (try? JSONSerialization.jsonObject(with: Data(stored))) as? [String: Any]
        let created: String
        let remedy: String
        if let webhook = object?["webhook"] as? [String: Any] {
            created = "webhook \(webhook["id"] as? String ?? "?")"
            remedy = "delete that webhook and create another if the secret was lost"
        } else {
            created = "token \((object?["token"] as? [String: Any])?["id"] as? String ?? "?")"
            remedy = "revoke that token and create another if the secret was lost"
        }
        return ServiceError.conflict(
            "this key created \(created); its secret was shown once and is not kept in the answer, so the answer "
                + "cannot be replayed: \(remedy)",
            field: "Idempotency-Key", rule: "secret-not-replayed")
    }

    /// Marks a stored answer whose secret was left out (never sent to a client as a content type).
    static let withheld = "application/x-aasa-secret-withheld"

    /// The answer without its top-level `secret`, or nil when it has none.
    static func withoutSecret(_ body: [UInt8]) -> [UInt8]? {
        guard body.count < 1 << 16, let text = String(validating: body, as: UTF8.self), text.contains("\"secret\""),
            var object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            object.removeValue(forKey: "secret") != nil,
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        else { return nil }
        return [UInt8](data)
    }

    private func release(principal: Principal, key: String, state: RequestState) async throws {
        try await RequestWork(database: database, logger: state.logger).read { session in
            try await session.releaseIdempotencyKey(tokenID: principal.tokenID, key: key)
        }
    }
}

/// Gathers a response body in memory (API answers are small JSON documents).
private final class BodyCollector: ResponseBodyWriter, @unchecked Sendable {
    var bytes: [UInt8] = []
    func write(_ buffer: ByteBuffer) async throws { bytes += buffer.readableBytesView }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
