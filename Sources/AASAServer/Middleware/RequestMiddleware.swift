import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Dispatch
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import Synchronization

/// Everything each request needs on its way in and out, in one turn of the chain (issue 43: three
/// middlewares, each an async frame of its own around the rest, were one):
/// - its ID (the client's `X-Request-ID` when it is sane, a new one otherwise) in the logger's
///   metadata, the response, and the one log line written when it ends (and, at debug level, one
///   when it starts: a test waits for that to know a request is inside);
/// - every error as `application/problem+json` (`ProblemResponse`), inside the request's state so
///   the problem names its request ID;
/// - after a request that may have written, the read generation moved before the response leaves,
///   so this replica's next read never answers from before the change (`ReadGeneration`);
/// - Hummingbird's HTTP metrics, the series its `MetricsMiddleware` kept.
struct RequestMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    static let header = HTTPField.Name("X-Request-ID")!

    var generation: ReadGeneration = .off
    let metrics = HTTPMetrics()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let requestID = request.headers[Self.header].flatMap(Self.sanitized) ?? UUID().uuidString.lowercased()
        var logger = context.logger
        logger[metadataKey: "request_id"] = .string(requestID)
        let start = ContinuousClock.now
        let startNanoseconds = DispatchTime.now().uptimeNanoseconds
        logger.debug(
            "request started",
            metadata: ["method": .string(request.method.rawValue), "path": .string(request.uri.path)])
        let active = metrics.active(request.method)
        active.increment()
        let state = RequestState(requestID: requestID, logger: logger, principal: nil)
        var response = await RequestState.$current.withValue(state) {
            do {
                return try await next(request, context)
            } catch {
                let problem = ProblemResponse.problem(for: error, logger: RequestState.current?.logger ?? logger)
                return ProblemResponse.response(problem, instance: request.uri.path)
            }
        }
        if request.method != .get && request.method != .head && request.method != .options { generation.bump() }
        response.headers[Self.header] = requestID
        // Recorded as the response leaves the chain: every body here is already in memory, so this
        // is where Hummingbird's middleware, timing to the body's last byte, would stop too.
        let endpoint = metrics.endpoint(context.endpointPath ?? "Unknown", request.method, response.status)
        endpoint.counter.increment()
        endpoint.timer.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - startNanoseconds))
        active.decrement()
        logger.info(
            "request",
            metadata: [
                "method": .string(request.method.rawValue),
                "path": .string(request.uri.path),
                "status": .stringConvertible(response.status.code),
                "ms": .string(String(format: "%.2f", (ContinuousClock.now - start).milliseconds)),
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

/// The series Hummingbird's `MetricsMiddleware` records (same labels and dimensions, so the
/// dashboards and alert rules read what they read), each made once per method or endpoint.
final class HTTPMetrics: Sendable {
    struct Endpoint: Sendable {
        let counter: Counter
        let timer: Metrics.Timer
    }
    private struct EndpointKey: Hashable {
        let endpoint: String
        let method: HTTPRequest.Method
        let status: Int
    }
    private let methods = Mutex<[HTTPRequest.Method: Meter]>([:])
    private let endpoints = Mutex<[EndpointKey: Endpoint]>([:])

    func active(_ method: HTTPRequest.Method) -> Meter {
        methods.withLock { table in
            if let meter = table[method] { return meter }
            let meter = Meter(
                label: "http.server.active_requests", dimensions: [("http.request.method", method.description)])
            table[method] = meter
            return meter
        }
    }

    func endpoint(_ endpoint: String, _ method: HTTPRequest.Method, _ status: HTTPResponse.Status) -> Endpoint {
        let key = EndpointKey(endpoint: endpoint, method: method, status: status.code)
        return endpoints.withLock { table in
            if let made = table[key] { return made }
            let dimensions = [
                ("http.route", endpoint), ("http.request.method", method.description),
                ("http.response.status_code", status.code.description),
            ]
            let made = Endpoint(
                counter: Counter(label: "hb.requests", dimensions: dimensions),
                timer: Metrics.Timer(
                    label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds))
            table[key] = made
            return made
        }
    }
}
