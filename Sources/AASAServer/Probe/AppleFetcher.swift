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

    public init() {}
}

/// One fetch, as Apple's fetcher would see it: no redirect followed, certificate verified, a
/// deadline, a size limit.
struct Fetched: Sendable {
    enum Failure: Sendable, Equatable {
        case unreachable(String)
        case tls(String)
        case timeout
        case tooLarge(Int?)
    }

    var url: String
    /// The `User-Agent` it was fetched with.
    var userAgent: String
    var status: Int?
    /// The response headers that matter to a debugging person (cache and CDN headers).
    var headers: [(name: String, value: String)] = []
    var bytes: [UInt8]?
    var elapsedMs: Double
    var failure: Failure?

    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
}

/// The HTTP client behind the probe and the CDN monitor.
struct AppleFetcher: Sendable {
    let config: FetchConfig
    private let client: HTTPClient

    init(config: FetchConfig) throws {
        self.config = config
        client = Self.client(for: config)
    }

    /// One client per distinct configuration, for the life of the process (a server has one; the
    /// tests a few): AsyncHTTPClient insists on an explicit shutdown before a client goes away,
    /// and a client that never goes away needs none.
    private static let clients = Mutex<[String: HTTPClient]>([:])

    private static func client(for config: FetchConfig) -> HTTPClient {
        let key = [config.caFile ?? "", "\(config.resolve.sorted { $0.key < $1.key })", "\(config.timeout)"].joined(
            separator: "|")
        return clients.withLock { clients in
            if let existing = clients[key] { return existing }
            var tls = TLSConfiguration.makeClientConfiguration()
            if let caFile = config.caFile { tls.additionalTrustRoots = [.file(caFile)] }
            var configuration = HTTPClient.Configuration(
                tlsConfiguration: tls, redirectConfiguration: .disallow,
                timeout: .init(connect: .seconds(Int64(config.timeout.components.seconds))))
            configuration.dnsOverride = config.resolve
            configuration.decompression = .disabled
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            clients[key] = client
            return client
        }
    }

    static let reportedHeaders = [
        "content-type", "content-length", "cache-control", "age", "etag", "last-modified", "expires",
        "server", "location", "via", "x-cache", "cf-cache-status", "x-served-by", "cf-ray", "x-amz-cf-id",
    ]

    /// The origin's URL for `host` on the configured port.
    func originURL(host: String, path: String) -> String {
        "https://\(host)\(config.port == 443 ? "" : ":\(config.port)")\(path)"
    }

    func fetch(_ url: String) async -> Fetched {
        let start = ContinuousClock.now
        func elapsed() -> Double {
            let d = ContinuousClock.now - start
            return Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
        }
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: config.userAgent)
        request.headers.add(name: "Accept", value: "*/*")
        var result = Fetched(url: url, userAgent: config.userAgent, elapsedMs: 0)
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
        result.elapsedMs = elapsed()
        return result
    }

    static func classify(_ error: any Error) -> Fetched.Failure {
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
