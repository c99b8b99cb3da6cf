import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import NIOCore

/// Answers `GET /.well-known/apple-app-site-association` (or `/.well-known/assetlinks.json`, one
/// instance each) before any other work: the file is chosen by the Host header (aliases included)
/// from memory, with `Content-Type: application/json` and its ETag; `If-None-Match` gives 304, an
/// unknown host 404. Never a redirect (Google's verifier follows none either).
struct WellKnownMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    static let aasaPath = "/.well-known/apple-app-site-association"
    static let assetLinksPath = "/.well-known/assetlinks.json"
    let path: String
    let served: ServedFiles

    // Made once: this path runs before the metrics middleware, and must stay cheap.
    private static let served200 = Counter(label: "aasad_wellknown_responses_total", dimensions: [("status", "200")])
    private static let served304 = Counter(label: "aasad_wellknown_responses_total", dimensions: [("status", "304")])
    private static let served404 = Counter(label: "aasad_wellknown_responses_total", dimensions: [("status", "404")])

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard request.uri.path == path, request.method == .get || request.method == .head else {
            return try await next(request, context)
        }
        let host = Self.hostName(request.head.authority ?? "")
        guard let file = served.file(for: host) else {
            Self.served404.increment()
            var headers = HTTPFields()
            headers[.contentType] = "application/problem+json"
            let body =
                #"""
                {"status":404,"title":"Not found","type":"urn:aasad:problem:not-found",\#
                "detail":"no published file for this host"}
                """#
            return Response(status: .notFound, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        var headers = HTTPFields()
        headers[.eTag] = file.etag
        headers[.cacheControl] = "max-age=300"
        if let match = request.headers[.ifNoneMatch],
            match.split(separator: ",").contains(where: {
                let tag = $0.trimmingCharacters(in: .whitespaces)
                return tag == file.etag || tag == "W/" + file.etag || tag == "*"
            })
        {
            Self.served304.increment()
            return Response(status: .notModified, headers: headers)
        }
        Self.served200.increment()
        headers[.contentType] = "application/json"
        headers[.contentLength] = String(file.bytes.count)
        if request.method == .head { return Response(status: .ok, headers: headers) }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
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
