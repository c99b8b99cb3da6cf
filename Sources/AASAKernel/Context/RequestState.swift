import AASAStore
import Logging

/// What a request carries from the middleware into the generated API handlers, which see only
/// OpenAPI types: a task-local is the bridge (as Hummingbird's OpenAPI template does).
package struct RequestState: Sendable {
    package var requestID: String
    package var logger: Logger
    package var principal: Principal?
    /// The request's one pooled connection, leased by `AuthMiddleware` for authentication and kept
    /// for every read and write the request makes (nil outside `/v1/`).
    package var session: DBSession?
    /// An admin's `force=true&reason=…` (nil without one): see `PolicyOverride`.
    package var override: PolicyOverride?
    /// The read generation a round trip confirmed after this request arrived (`ReadGeneration.sync`),
    /// when its token came from memory: a kept answer of that generation needs no second one.
    package var syncedGeneration: UInt64?

    package init(
        requestID: String, logger: Logger, principal: Principal? = nil, session: DBSession? = nil,
        override: PolicyOverride? = nil
    ) {
        self.requestID = requestID
        self.logger = logger
        self.principal = principal
        self.session = session
        self.override = override
    }

    @TaskLocal package static var current: RequestState?
}
