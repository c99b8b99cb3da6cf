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
struct IdempotencyMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    static let header = HTTPField.Name("Idempotency-Key")!
    static let replayed = HTTPField.Name("Idempotency-Replayed")!
    let database: Database

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, let key = request.headers[Self.header],
              let state = RequestState.current, let principal = state.principal else {
            return try await next(request, context)
        }
        guard !key.isEmpty, key.utf8.count <= 255, key.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw APIProblem.badRequest("Idempotency-Key must be 1 to 255 printable ASCII characters",
                                        field: "Idempotency-Key", rule: "format")
        }
        var request = request
        let body = try await request.collectBody(upTo: .max)
        var hasher = SHA256()
        hasher.update(data: Data("\(request.method.rawValue) \(request.uri.path)\n".utf8))
        hasher.update(data: Data(body.readableBytesView))
        let fingerprint = Array(hasher.finalize())

        let existing = try await database.read(logger: state.logger) { session in
            try await session.claimIdempotencyKey(tokenID: principal.tokenID, key: key, fingerprint: fingerprint)
        }
        if let existing {
            guard existing.fingerprint == fingerprint else {
                throw APIProblem.invalid(field: "Idempotency-Key", rule: "idempotency-key-reused",
                                         "this key was used for a different request; use a new key for a new request")
            }
            guard let status = existing.status else {
                throw APIProblem.conflict("a request with this Idempotency-Key is still running, or its answer was lost; look at the resource before retrying",
                                          field: "Idempotency-Key", rule: "in-progress")
            }
            var headers = HTTPFields()
            if let contentType = existing.contentType { headers[.contentType] = contentType }
            if let etag = existing.etag { headers[.eTag] = etag }
            if let location = existing.location { headers[.location] = location }
            headers[Self.replayed] = "true"
            return Response(status: .init(code: status), headers: headers,
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
        let stored = IdempotentResponse(fingerprint: fingerprint, status: Int(response.status.code),
                                        contentType: response.headers[.contentType], etag: response.headers[.eTag],
                                        location: response.headers[.location], body: bytes)
        try await database.read(logger: state.logger) { session in
            try await session.completeIdempotencyKey(tokenID: principal.tokenID, key: key, response: stored)
        }
        var replay = response
        replay.body = .init(byteBuffer: ByteBuffer(bytes: bytes))
        return replay
    }

    private func release(principal: Principal, key: String, state: RequestState) async throws {
        try await database.read(logger: state.logger) { session in
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
