import AASACore
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Gives every request an ID (the client's `X-Request-ID` when it is sane, a new one otherwise),
/// puts it in the logger's metadata and the response, and logs each request when it ends (and,
/// at debug level, when it starts: a test waits for that to know a request is inside).
struct RequestIDMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    static let header = HTTPField.Name("X-Request-ID")!
    /// Moved after every request that may have written, before its response leaves: this replica's
    /// next read never answers from before the change (other replicas hear its NOTIFY).
    var generation: ReadGeneration = .off

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let requestID = request.headers[Self.header].flatMap(Self.sanitized) ?? UUID().uuidString.lowercased()
        var logger = context.logger
        logger[metadataKey: "request_id"] = .string(requestID)
        let start = ContinuousClock.now
        logger.debug(
            "request started",
            metadata: ["method": .string(request.method.rawValue), "path": .string(request.uri.path)])
        let state = RequestState(requestID: requestID, logger: logger, principal: nil)
        let mayWrite = request.method != .get && request.method != .head && request.method != .options
        var response: Response
        do {
            response = try await RequestState.$current.withValue(state) { try await next(request, context) }
        } catch {
            if mayWrite { generation.bump() }
            throw error
        }
        if mayWrite { generation.bump() }
        response.headers[Self.header] = requestID
        let elapsed = ContinuousClock.now - start
        logger.info(
            "request",
            metadata: [
                "method": .string(request.method.rawValue),
                "path": .string(request.uri.path),
                "status": .stringConvertible(response.status.code),
                "ms": .string(String(format: "%.2f", elapsed.milliseconds)),
            ])
        return response
    }

    /// Up to 128 visible ASCII characters; anything else is replaced, never echoed into logs.
    static func sanitized(_ value: String) -> String? {
        guard !value.isEmpty, value.utf8.count <= 128,
            value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { return nil }
        return value
    }
}
