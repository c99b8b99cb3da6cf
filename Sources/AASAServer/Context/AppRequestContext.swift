import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
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
