import AASAStore
import Foundation
import Hummingbird
import Logging
import NIOCore

/// Hummingbird's per-request context; what the generated handlers need travels in `RequestState`.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's IP address (the console counts failed sign-ins by it); nil when unknown.
    public var clientAddress: String?

    public init(source: Source) {
        self.coreContext = .init(source: source)
        self.clientAddress = source.channel.remoteAddress?.ipAddress
    }
}

/// What a request carries from the middleware into the generated API handlers, which see only
/// OpenAPI types: a task-local is the bridge (as Hummingbird's OpenAPI template does).
struct RequestState: Sendable {
    var requestID: String
    var logger: Logger
    var principal: Principal?
    /// The request's one pooled connection, leased by `AuthMiddleware` for authentication and kept
    /// for every read and write the request makes (nil outside `/v1/`).
    var session: DBSession?
    /// An admin's `force=true&reason=…` (nil without one): see `PolicyOverride`.
    var override: PolicyOverride?

    @TaskLocal static var current: RequestState?
}
