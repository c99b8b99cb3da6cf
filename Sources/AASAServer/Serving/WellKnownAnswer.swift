import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import HTTPTypes
import Metrics
import NIOCore

/// The answer for a served file (`/.well-known/apple-app-site-association` or
/// `/.well-known/assetlinks.json`): the file chosen by the Host header (aliases included) from
/// memory, with `Content-Type: application/json` and its ETag; `If-None-Match` gives 304, an
/// unknown host 404. Never a redirect (Google's verifier follows none either). One function for
/// both places that answer it: `WellKnownChannelHandler` on the event loop and
/// `WellKnownMiddleware` in the router.
struct WellKnownAnswer {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    /// nil for 304 and for HEAD (whose `Content-Length` is still GET's).
    var body: ByteBuffer?

    // Made once: this path runs before the metrics middleware, and must stay cheap.
    private static let served200 = Counter(label: "aasad_wellknown_responses_total", dimensions: [("status", "200")])
    private static let served304 = Counter(label: "aasad_wellknown_responses_total", dimensions: [("status", "304")])
    private static let served404 = Counter(label: "aasad_wellknown_responses_total", dimensions: [("status", "404")])
    private static let notFound = ByteBuffer(
        string: #"""
            {"status":404,"title":"Not found","type":"urn:aasad:problem:not-found",\#
            "detail":"no published file for this host"}
            """#)

    /// `authority`: the request's Host; `headers`: its fields (for `If-None-Match`).
    init(served: ServedFiles, authority: String?, headers requestHeaders: HTTPFields, isHead: Bool) {
        guard let file = served.file(for: Self.hostName(authority ?? "")) else {
            Self.served404.increment()
            status = .notFound
            headers = [.contentType: "application/problem+json", .contentLength: String(Self.notFound.readableBytes)]
            body = isHead ? nil : Self.notFound
            return
        }
        status = .ok
        headers = [.eTag: file.etag, .cacheControl: "max-age=300"]
        if let match = requestHeaders[.ifNoneMatch], Self.matches(match, etag: file.etag) {
            Self.served304.increment()
            status = .notModified
            headers[.contentLength] = "0"
            body = nil
            return
        }
        Self.served200.increment()
        headers[.contentType] = "application/json"
        headers[.contentLength] = String(file.buffer.readableBytes)
        body = isHead ? nil : file.buffer
    }

    /// Whether an `If-None-Match` list names this ETag (weakly or strongly) or `*`.
    static func matches(_ list: String, etag: String) -> Bool {
        list.split(separator: ",").contains {
            let tag = $0.trimmingCharacters(in: .whitespaces)
            return tag == etag || tag == "W/" + etag || tag == "*"
        }
    }

    /// `Host` without port or trailing dot, lower-cased (punycode hosts are ASCII).
    static func hostName(_ authority: String) -> String {
        var host = Substring(authority)
        if host.hasPrefix("[") { return String(host).lowercased() }
        if let colon = host.lastIndex(of: ":") { host = host[..<colon] }
        if host.hasSuffix(".") { host = host.dropLast() }
        return host.lowercased()
    }
}
