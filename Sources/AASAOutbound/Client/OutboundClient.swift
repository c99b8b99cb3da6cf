import AASAKernel
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// How aasad fetches files as Apple's fetchers do, for the origin probe and the CDN monitor.
public struct FetchConfig: Sendable {
    /// A PEM file of extra trust roots, added to the system store (a private CA, or the tests').
    public var caFile: String?
    /// Host → address to connect to instead of asking DNS (tests and diagnostics; the TLS name and
    /// `Host` stay the host's, so the certificate is still checked for it).
    public var resolve: [String: String] = [:]
    /// The port origins are fetched on: 443, as Apple's fetcher does (another one only for tests).
    public var port = 443
    /// Apple's fetcher gives up after a few seconds.
    public var timeout: Duration = .seconds(5)
    /// Apple reads at most 128 KB.
    public var maxBytes = 128 * 1024
    /// Apple's CDN fetcher announces itself so; some WAFs refuse it, which is one thing the probe finds.
    public var userAgent = "AASA-Bot/1.0.0"
    /// Where Apple's CDN answers for a host: `<base><host>`.
    public var cdnBaseURL = "https://app-site-association.cdn-apple.com/a/v1/"
    /// Connect to hosts whose names resolve to loopback, private, link-local or unique-local
    /// addresses (`--probe-allow-private`): off, so that a domain cannot point aasad at an internal
    /// service. Hosts in `resolve` are the operator's own word and always allowed.
    public var allowPrivate = false
    /// How long Apple's CDN may serve an older revision before `cdn.stale` is told (49 h: past
    /// Apple's 48 h cache, so a real problem; `AASA_CDN_STALE_AFTER_S`).
    public var cdnStaleAfter: Duration = .seconds(49 * 3600)
    /// How a host name becomes addresses (the system resolver; tests give their own).
    public var lookup: @Sendable (String) async throws -> [String] = SystemResolver.addresses(of:)

    public init() {}
}

/// One fetch, as Apple's fetcher would see it: no redirect followed, certificate verified, a
/// deadline, a size limit.
package struct Fetched: Sendable {
    package enum Failure: Sendable, Equatable {
        case unreachable(String)
        case tls(String)
        case timeout
        case tooLarge(Int?)
        /// The host resolves to an address the policy refuses (the host, the address).
        case privateAddress(String, String)
    }

    package var url: String
    /// The `User-Agent` it was fetched with.
    package var userAgent: String
    package var status: Int?
    /// The response headers that matter to a debugging person (cache and CDN headers).
    package var headers: [(name: String, value: String)] = []
    package var bytes: [UInt8]?
    package var elapsedMs: Double
    package var failure: Failure?

    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// Every call aasad makes to another server goes through this client: the origin probe, the CDN
/// monitor, Google's API, object stores and purges, OIDC discovery and keys, and webhooks. One place
/// holds the trust roots, the deadline, the size limit and the private-address policy.
package struct OutboundClient: Sendable {
    package let config: FetchConfig
    private let client: HTTPClient

    package init(config: FetchConfig) throws {
        self.config = config
        client = Self.client(for: config)
    }

    /// One client per distinct configuration, for the life of the process (a server has one; the
    /// tests a few): AsyncHTTPClient insists on an explicit shutdown before a client goes away,
    /// and a client that never goes away needs none. Object stores and purges share them.
    private static let clients = Mutex<[String: HTTPClient]>([:])

    private static func client(for config: FetchConfig) -> HTTPClient {
        client(caFile: config.caFile, resolve: config.resolve, timeout: config.timeout)
    }

    /// The process's client for this trust, these resolution overrides and this timeout.
    package static func client(caFile: String?, resolve: [String: String], timeout: Duration) -> HTTPClient {
        let key = [caFile ?? "", "\(resolve.sorted { $0.key < $1.key })", "\(timeout)"].joined(separator: "|")
        return clients.withLock { clients in
            if let existing = clients[key] { return existing }
            let client = makeClient(caFile: caFile, resolve: resolve, timeout: timeout)
            clients[key] = client
            return client
        }
    }

    /// A new client: the extra CA (`AASA_PROBE_CA_FILE`), no redirect followed, no decompression.
    private static func makeClient(caFile: String?, resolve: [String: String], timeout: Duration) -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile { tls.additionalTrustRoots = [.file(caFile)] }
        let seconds = Int64(timeout.components.seconds)
        // The read timeout is a backstop only: `fetch` bounds the whole exchange with one deadline.
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(seconds), read: .seconds(seconds)))
        configuration.dnsOverride = resolve
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    package static let reportedHeaders = [
        "content-type", "content-length", "cache-control", "age", "etag", "last-modified", "expires",
        "server", "location", "via", "x-cache", "cf-cache-status", "x-served-by", "cf-ray", "x-amz-cf-id",
        "retry-after",
    ]

    /// The origin's URL for `host` on the configured port.
    package func originURL(host: String, path: String) -> String {
        "https://\(host)\(config.port == 443 ? "" : ":\(config.port)")\(path)"
    }

    /// One fetch under one deadline for all of it: resolving, connecting, TLS, the head and the
    /// whole body (issue 27). A stall anywhere is `.timeout` when the deadline passes, however long
    /// the peer keeps the connection open; the abandoned exchange is cancelled.
    package func fetch(_ url: String) async -> Fetched {
        await send(url)
    }

    /// A fetch from a server this aasad is configured to use (Google's API), not one the registry
    /// names: no address check or pinning, so requests reuse the shared client's connections (one
    /// pinned client per request opened a TLS connection each time; issue 50).
    package func fetchConfigured(_ url: String) async -> Fetched {
        await send(url, configured: true)
    }

    /// A POST under the same rules (the trust, the resolution overrides, the private-address
    /// policy, one deadline): webhook deliveries connect as the probe does.
    package func post(_ url: String, headers: [(String, String)], body: [UInt8]) async -> Fetched {
        await send(url, method: .POST, headers: headers, body: body)
    }

    private func send(
        _ url: String, method: HTTPMethod = .GET, headers: [(String, String)] = [], body: [UInt8]? = nil,
        configured: Bool = false
    ) async -> Fetched {
        let start = ContinuousClock.now
        // The client's own deadline (connect, TLS, head) ends first and says why; this one, a
        // little later, also covers the body, which the client's deadline does not.
        let outcome = await Self.within(config.timeout + Self.deadlineMargin) {
            await self.exchange(url, method: method, headers: headers, body: body, configured: configured)
        }
        var result = outcome ?? Fetched(url: url, userAgent: config.userAgent, elapsedMs: 0, failure: .timeout)
        result.elapsedMs = (ContinuousClock.now - start).milliseconds
        return result
    }

    package static let deadlineMargin: Duration = .milliseconds(500)

    /// `work`'s result, or nil once `limit` has passed (the work is then cancelled, not awaited:
    /// a peer that ignores the cancellation cannot hold the caller).
    package static func within<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async -> T) async -> T? {
        let race = Race<T>()
        return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            race.start(continuation, limit: limit, work: work)
        }
    }

    /// The state of one `within`: whichever of the work and the timer ends first resumes the caller.
    private final class Race<T: Sendable>: Sendable {
        private let pending = Mutex<CheckedContinuation<T?, Never>?>(nil)
        private let worker = Mutex<Task<Void, Never>?>(nil)

        package func start(
            _ continuation: CheckedContinuation<T?, Never>, limit: Duration, work: @escaping @Sendable () async -> T
        ) {
            pending.withLock { $0 = continuation }
            let task = Task { _ = self.finish(await work()) }
            worker.withLock { $0 = task }
            Task {
                try? await Task.sleep(for: limit)
                if self.finish(nil) { self.worker.withLock { $0 }?.cancel() }
            }
        }

        /// Resumes the caller with `value` if nobody has yet; whether this call did.
        @discardableResult
        private func finish(_ value: T?) -> Bool {
            guard let continuation = pending.withLock({ $0.take() }) else { return false }
            continuation.resume(returning: value)
            return true
        }
    }

    /// Resolves and checks the host (unless `resolve` names it), then asks and reads the answer.
    private func exchange(
        _ url: String, method: HTTPMethod, headers: [(String, String)], body: [UInt8]?, configured: Bool
    ) async -> Fetched {
        var result = Fetched(url: url, userAgent: config.userAgent, elapsedMs: 0)
        var client = self.client
        var pinned: HTTPClient?
        // The host checked, the override's key and the host the client connects to: one spelling.
        guard let outbound = OutboundURL(url) else {
            result.failure = .unreachable("not a URL with a host aasad can connect to")
            return result
        }
        let host = outbound.host
        var addresses: [String]?
        if !configured {
            do { addresses = try await config.checkedAddresses(of: host) } catch let refused as PrivateAddressRefused {
                result.failure = .privateAddress(host, refused.address)
                return result
            } catch {
                result.failure = .unreachable(String(describing: error))
                return result
            }
        }
        // Connect to the address just checked, not to whatever a second lookup would answer
        // (DNS rebinding); TLS still verifies the certificate for the host name.
        if !configured, !config.allowPrivate, let address = addresses?.first {
            let own = Self.makeClient(caFile: config.caFile, resolve: [host: address], timeout: config.timeout)
            pinned = own
            client = own
        }
        var request = HTTPClientRequest(url: outbound.text)
        request.method = method
        if !headers.contains(where: { $0.0.lowercased() == "user-agent" }) {
            request.headers.add(name: "User-Agent", value: config.userAgent)
        }
        request.headers.add(name: "Accept", value: "*/*")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            let seconds = Int64(config.timeout.components.seconds)
            let response = try await client.execute(request, deadline: .now() + .seconds(seconds))
            result.status = Int(response.status.code)
            result.headers = response.headers.filter { Self.reportedHeaders.contains($0.name.lowercased()) }.map {
                ($0.name, $0.value)
            }
            if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > config.maxBytes {
                result.failure = .tooLarge(length)
            } else {
                do {
                    result.bytes = Array((try await response.body.collect(upTo: config.maxBytes)).readableBytesView)
                } catch is NIOTooManyBytesError {
                    result.failure = .tooLarge(nil)
                }
            }
        } catch {
            result.failure = Self.classify(error)
        }
        try? await pinned?.shutdown()
        return result
    }

    package static func classify(_ error: any Error) -> Fetched.Failure {
        if let e = error as? HTTPClientError,
            [.deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout].contains(e)
        {
            return .timeout
        }
        let text = String(describing: error)
        if error is NIOSSLError || text.contains("SSL") || text.lowercased().contains("certificate")
            || text.contains("handshake")
        {
            return .tls(text)
        }
        return .unreachable(text)
    }
}
