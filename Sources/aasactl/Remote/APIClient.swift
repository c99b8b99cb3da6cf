import AASAModel
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A failure to print and exit with 1: an unreachable server, a missing token, a bad file.
struct CLIFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// An answer of the API that is not 2xx, from its problem+json body.
struct APIFailure: Error {
    var status: Int
    var title: String
    var detail: String?
    /// `(field, rule, message)` of `errors[]`.
    var errors: [(field: String, rule: String, message: String)]
    var body: [UInt8]
    /// The answer's `Retry-After`, in seconds.
    var retryAfter: Int?

    init(status: Int, body: [UInt8], retryAfter: Int? = nil) {
        self.status = status
        self.body = body
        self.retryAfter = retryAfter
        let object = (try? JSONParser.parse(body).value)?.objectValue ?? [:]
        title = object["title"]?.stringValue ?? "HTTP \(status)"
        detail = object["detail"]?.stringValue
        errors = (object["errors"]?.arrayValue ?? []).compactMap {
            guard let e = $0.objectValue else { return nil }
            return (e["field"]?.stringValue ?? "", e["rule"]?.stringValue ?? "", e["message"]?.stringValue ?? "")
        }
    }
}

struct APIResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]

    func header(_ name: String) -> String? { headers.first(name: name) }

    /// The body as JSON (every API answer but a revision's file and metrics is JSON).
    func json() throws -> JSONValue {
        do { return try JSONParser.parse(body).value } catch {
            throw CLIFailure("the server's answer is not JSON: \(error)")
        }
    }
}

/// The API over AsyncHTTPClient. Requests that are safe to repeat (GET, PUT, DELETE, and a POST
/// carrying an Idempotency-Key) are retried on a lost connection, a 503, or a proxy's 502 or 504,
/// with the same key, so an interrupted write is answered by the server's stored answer rather
/// than done twice.
struct APIClient: Sendable {
    let server: String
    let token: String?
    var attempts = 4
    var timeout: TimeAmount = .seconds(30)
    var onRetry: @Sendable (String) -> Void = { _ in }
    /// `--force-reason`: every change this client sends is an admin override with this reason.
    var forceReason: String?

    static func path(_ parts: String...) -> String { path(parts) }

    static func path(_ parts: [String]) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%")
        return "/" + parts.map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0 }.joined(separator: "/")
    }

    /// The methods the API uses (spelled as NIO spells them, so commands need not import NIO).
    enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
        case put = "PUT"
        case patch = "PATCH"
        case delete = "DELETE"
        var nio: HTTPMethod { HTTPMethod(rawValue: rawValue) }
    }

    /// Every page of a paged list (`items`, `nextCursor`), followed to the end, as one answer
    /// `{"items": [...]}`.
    func sendAllPages(_ path: String) async throws -> APIResponse {
        var items: [JSONValue] = []
        var cursor: String?
        var last: APIResponse
        repeat {
            last = try await send(.get, path, query: [("limit", "500"), ("cursor", cursor)])
            let page = try last.json().objectValue
            items += page?["items"]?.arrayValue ?? []
            cursor = page?["nextCursor"]?.stringValue
        } while cursor != nil
        let merged = JSONWriter(style: .pretty).bytes(.object(["items": .array(items)]))
        return APIResponse(status: last.status, headers: last.headers, body: merged)
    }

    func send(
        _ method: Method, _ path: String, query: [(String, String?)] = [], body: JSONValue? = nil,
        form: [(String, String)]? = nil, headers extra: [(String, String)] = []
    ) async throws -> APIResponse {
        var url = server.hasSuffix("/") ? String(server.dropLast()) : server
        url += path
        var query = query
        if let forceReason, method != .get { query += [("force", "true"), ("reason", forceReason)] }
        let items = query.compactMap { name, value in value.map { (name, $0) } }
        if !items.isEmpty {
            var allowed = CharacterSet.urlQueryAllowed
            allowed.remove(charactersIn: "&=+")
            url +=
                "?"
                + items.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed) ?? $1)" }.joined(
                    separator: "&")
        }
        var request = HTTPClientRequest(url: url)
        request.method = method.nio
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "aasactl")
        let payload = body.map { JSONWriter().bytes($0) }
        if let payload {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: payload))
        } else if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: FormEncoding.encode(form)))
        }
        for (name, value) in extra { request.headers.add(name: name, value: value) }

        let repeatable = method != .post || extra.contains { $0.0.lowercased() == "idempotency-key" }
        var attempt = 1
        while true {
            do {
                let response = try await CLIHTTP.client.execute(request, timeout: timeout)
                let bytes = Array((try await response.body.collect(upTo: 64 << 20)).readableBytesView)
                let status = Int(response.status.code)
                if repeatable, attempt < attempts, Self.saysRetry(status, response.headers) {
                    onRetry("the server is unavailable (\(status)); retrying")
                } else if (200..<300).contains(status) || status == 304 {
                    return APIResponse(status: status, headers: response.headers, body: bytes)
                } else {
                    let retryAfter = response.headers.first(name: "Retry-After").flatMap { Int($0) }
                    throw APIFailure(status: status, body: bytes, retryAfter: retryAfter)
                }
            } catch let failure as APIFailure {
                throw failure
            } catch {
                guard repeatable, attempt < attempts else {
                    throw CLIFailure("cannot reach \(server): \(Self.describe(error))")
                }
                onRetry("lost the connection to \(server) (\(Self.describe(error))); retrying")
            }
            try await Task.sleep(for: .milliseconds(200 << (attempt - 1)))
            attempt += 1
        }
    }

    /// A 503 (aasad draining, or its database away), or a proxy's 502 or 504 while a replica
    /// restarts in a rolling upgrade (not aasad's own problem+json, which is a real answer).
    static func saysRetry(_ status: Int, _ headers: HTTPHeaders) -> Bool {
        switch status {
        case 503: true
        case 502, 504: headers.first(name: "Content-Type")?.hasPrefix("application/problem+json") != true
        default: false
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError { return error.description }
        return String(describing: error)
    }
}
