import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import HTTPTypes
import Hummingbird
import OpenAPIRuntime
import Synchronization

/// Every (method, path template) the service answers, recorded as routes are registered, so a
/// request with an undeclared method on a declared path can be told apart from an unknown path.
final class RouteTable: Sendable {
    private let routes = Mutex<[(method: HTTPRequest.Method, segments: [Substring])]>([])

    func add(_ method: HTTPRequest.Method, _ template: String) {
        routes.withLock { $0.append((method, template.split(separator: "/"))) }
    }

    /// The methods declared for `path`; `{name}` segments match any one segment. Where templates
    /// disagree (`/expectations/check` and `/expectations/{id}`), the router takes the one with
    /// the most literal segments and does not fall back, so only that one's methods count.
    func methods(for path: String) -> [HTTPRequest.Method] {
        let parts = path.split(separator: "/")
        let matching = routes.withLock { routes in
            routes.filter { route in
                route.segments.count == parts.count
                    && zip(route.segments, parts).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
            }
        }
        func literals(_ segments: [Substring]) -> Int { segments.filter { !$0.hasPrefix("{") }.count }
        let best = matching.map { literals($0.segments) }.max()
        return matching.filter { literals($0.segments) == best }.map(\.method)
    }
}

/// The generated handlers' transport (the Hummingbird router), recording each route it registers.
struct RouteRecordingTransport<Inner: ServerTransport>: ServerTransport {
    let inner: Inner
    let table: RouteTable
    /// GET paths answered by a route of our own (`FastReadRoutes`): recorded, not registered.
    var ownGETs: Set<String> = []

    func register(
        _ handler:
            @escaping @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (
                HTTPResponse, HTTPBody?
            ),
        method: HTTPRequest.Method, path: String
    ) throws {
        table.add(method, path)
        guard !(method == .get && ownGETs.contains(path)) else { return }
        try inner.register(handler, method: method, path: path)
    }
}

/// An undeclared method on a declared path answers 405 with `Allow` (RFC 9110 §15.5.6), not 404.
struct MethodNotAllowedMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let allowed = routes.methods(for: request.uri.path)
            guard !allowed.isEmpty, !allowed.contains(request.method) else { throw error }
            var problem = ServiceError(
                kind: .methodNotAllowed, slug: "method-not-allowed", title: "Method not allowed",
                detail: "\(request.uri.path) answers \(allowed.map(\.rawValue).joined(separator: ", "))")
            problem.allow = allowed.map(\.rawValue)
            throw problem
        }
    }
}
