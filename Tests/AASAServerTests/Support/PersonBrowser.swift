import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// A browser as far as the console cares: its cookies (by name; the console's paths are all under
/// /console) and the CSRF token of the last page, against an in-process world or a running aasad.
/// Redirects are not followed: the tests look at each.
final class PersonBrowser: @unchecked Sendable {
    typealias Send = @Sendable (HTTPRequest.Method, String, String?, [String: String]) async throws -> TestWorld.Reply
    private let send: Send
    var cookies: [String: String] = [:]
    var csrf = ""

    init(_ world: TestWorld) {
        send = { method, path, body, headers in try await world.call(method, path, raw: body, headers: headers) }
    }

    init(baseURL: String) {
        send = { method, path, body, headers in
            var request = HTTPClientRequest(url: baseURL + path)
            request.method = .init(rawValue: method.rawValue)
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            if let body { request.body = .bytes(ByteBuffer(string: body)) }
            let response = try await TestWorld.httpClient.execute(request, timeout: .seconds(120))
            let bytes = try await response.body.collect(upTo: 16 << 20)
            var fields = HTTPFields()
            for (name, value) in response.headers {
                if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
            }
            return TestWorld.Reply(
                status: Int(response.status.code), headers: fields, body: Array(bytes.readableBytesView))
        }
    }

    @discardableResult
    func get(_ path: String) async throws -> TestWorld.Reply {
        let reply = try await send(.get, path, nil, cookieHeader)
        remember(reply)
        return reply
    }

    /// `csrf: false` leaves the form's CSRF token out, as a cross-site post would.
    @discardableResult
    func post(_ path: String, _ form: [String: String], csrf: Bool = true) async throws -> TestWorld.Reply {
        var form = form
        if csrf { form["csrf"] = self.csrf }
        let body = form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" }
        var headers = cookieHeader
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        let reply = try await send(.post, path, body.joined(separator: "&"), headers)
        remember(reply)
        return reply
    }

    /// A token sign-in through the form.
    func signIn(_ token: String) async throws -> TestWorld.Reply {
        try await get("/console/sign-in")
        return try await post("/console/sign-in", ["token": token])
    }

    private var cookieHeader: [String: String] {
        cookies.isEmpty ? [:] : ["Cookie": cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")]
    }

    private func remember(_ reply: TestWorld.Reply) {
        for header in reply.headers[values: .setCookie] {
            let pair = header.split(separator: ";")[0].split(separator: "=", maxSplits: 1)
            let name = String(pair[0])
            cookies[name] = header.contains("Max-Age=0") || pair.count < 2 ? nil : String(pair[1])
        }
        if let range = reply.text.range(of: #"name="csrf" value="[0-9a-f]{64}""#, options: .regularExpression) {
            csrf = String(reply.text[range].dropFirst(19).dropLast())
        }
    }
}
