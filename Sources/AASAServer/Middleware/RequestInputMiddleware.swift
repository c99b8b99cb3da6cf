import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import Hummingbird
import NIOCore

/// What every request's input must be before anyone authenticates it, checked once here, in
/// time linear in its size and without parsing a body:
/// - a body above the size limit is 413, declared or chunked (a chunked body is cut off, not read
///   to its end);
/// - U+0000 in the path or the query is 400 naming where: PostgreSQL refuses it in text, and no
///   name, pattern or reason needs it;
/// - an `If-Match` longer than openapi.yaml's 100 characters, or an `If-None-Match` longer than its
///   1,000, is 400, measured as sent.
/// The body is collected here (bytes only); `RequestBodyMiddleware`, after authentication, parses
/// and checks it (issue 49: an unknown token is refused before any byte of a body is parsed).
struct RequestInputMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let maxBodyBytes: Int
    /// Request paths whose body may be larger than `maxBodyBytes`: an import carries whole files,
    /// and a JSON string of 256 KiB can take six times that once escaped.
    static let largerBodies: [String: Int] = ["/v1/imports": 4 << 20]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var request = request
        let maxBodyBytes = max(self.maxBodyBytes, Self.largerBodies[request.uri.path] ?? 0)
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maxBodyBytes {
            throw HTTPError(.contentTooLarge)
        }
        // As sent: the generated code URI-decodes header values, so `%22…` would shrink under the bound.
        if let ifMatch = request.headers[.ifMatch], ifMatch.unicodeScalars.count > 100 {
            throw ServiceError.badRequest("If-Match is at most 100 characters", field: "If-Match", rule: "maxLength")
        }
        if let ifNoneMatch = request.headers[.ifNoneMatch], ifNoneMatch.unicodeScalars.count > 1_000 {
            throw ServiceError.badRequest(
                "If-None-Match is at most 1000 characters", field: "If-None-Match", rule: "maxLength")
        }
        if Self.hasEncodedNUL(request.uri.path) {
            throw ServiceError.badRequest(
                "the path contains U+0000 (%00), which no name holds", field: "path", rule: "no-nul")
        }
        if let query = request.uri.query, Self.hasEncodedNUL(query) {
            let name =
                query.split(separator: "&").first { Self.hasEncodedNUL(String($0)) }?.split(separator: "=").first.map(
                    String.init) ?? "query"
            throw ServiceError.badRequest("the query parameter contains U+0000 (%00)", field: name, rule: "no-nul")
        }
        if request.method != .get && request.method != .head {
            // Hummingbird keeps the collected bytes as the request's body for what comes after.
            do { _ = try await request.collectBody(upTo: maxBodyBytes) } catch is NIOTooManyBytesError {
                throw HTTPError(.contentTooLarge)
            }
        }
        return try await next(request, context)
    }

    static func hasEncodedNUL(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 3 else { return bytes.contains(0) }
        for i in 0..<(bytes.count - 2)
        where bytes[i] == UInt8(ascii: "%") && bytes[i + 1] == UInt8(ascii: "0") && bytes[i + 2] == UInt8(ascii: "0") {
            return true
        }
        return bytes.contains(0)
    }
}
