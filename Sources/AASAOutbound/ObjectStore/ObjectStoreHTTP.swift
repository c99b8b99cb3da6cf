import AASAKernel
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The HTTP client of object stores, STS and purge APIs: the probe's TLS trust (`AASA_PROBE_CA_FILE`
/// adds a CA), no redirect followed (a store that redirects is misconfigured, and a redirect would
/// carry a signed request elsewhere), one deadline per exchange, answers read up to 1 MB.
/// Endpoints are an admin's configuration, so private addresses are allowed (a MinIO in the
/// cluster is a real deployment); the edge check goes through the probe's fetcher and its rules.
package struct ObjectStoreHTTP: Sendable {
    package struct Response: Sendable {
        package var status: Int
        package var headers: [(String, String)]
        package var body: [UInt8]

        package func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        /// `Code: Message` of an AWS XML error, or the status and the start of the body.
        package var problem: String {
            if let code = XMLText.first("Code", in: body) {
                return "HTTP \(status) \(code)" + (XMLText.first("Message", in: body).map { ": \($0)" } ?? "")
            }
            let text = String(decoding: body.prefix(200), as: UTF8.self)
            return "HTTP \(status)" + (text.isEmpty ? "" : ": \(text)")
        }
    }

    package struct Failure: Error, CustomStringConvertible, Sendable {
        package var description: String
    }

    private let client: HTTPClient
    package let timeout: Duration

    /// - Parameter resolve: host → address, the probe's overrides (`AASA_PROBE_RESOLVE`; tests).
    package init(caFile: String?, resolve: [String: String] = [:], timeout: Duration = .seconds(10)) {
        self.timeout = timeout
        client = OutboundClient.client(caFile: caFile, resolve: resolve, timeout: timeout)
    }

    package func send(method: String, url: String, headers: [(String, String)], body: [UInt8] = []) async throws
        -> Response
    {
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers where name.lowercased() != "host" { request.headers.add(name: name, value: value) }
        if !body.isEmpty || method == "PUT" || method == "POST" {
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        do {
            let response = try await client.execute(request, timeout: .seconds(Int64(timeout.components.seconds)))
            var collected = try await response.body.collect(upTo: 1 << 20)
            return Response(
                status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
                body: collected.readBytes(length: collected.readableBytes) ?? [])
        } catch {
            throw Failure(description: "\(method) \(Self.withoutQuery(url)): \(error)")
        }
    }

    /// A URL as it may be logged: a presigned or token-bearing query never is.
    package static func withoutQuery(_ url: String) -> String {
        url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
    }
}
