import AASACore
import AASAModel
import Hummingbird
import NIOCore

/// What every request's input must be before anything reads it, checked once here:
/// - a body above the size limit is 413, declared or chunked (a chunked body is cut off, not read
///   to its end);
/// - `null` in a JSON body is 400: no field of this API takes null, and the generated decoder
///   would read it as "absent";
/// - U+0000 anywhere (a body string or key, the path, the query) is 400 naming where: PostgreSQL
///   refuses it in text, and no name, pattern or reason needs it;
/// - a JSON string longer than `maxStringBytes` is 400 (`maxLength`): fields with a tighter bound
///   in openapi.yaml are checked where they are read, and the few that carry a whole file
///   (`longStrings`) have their own, wider bound;
/// - an `If-Match` longer than openapi.yaml's 100 characters, or an `If-None-Match` longer than its
///   1,000, is 400, measured as sent;
/// - a key given twice in one JSON object is 422 naming it: the generated decoder would silently
///   keep one of the two values (in an import's team map, two teams claiming one prefix).
/// What comes after (idempotency's fingerprint, the generated decoder) sees the collected body.
struct RequestInputMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let maxBodyBytes: Int
    static let maxStringBytes = 4096
    /// Body fields that carry a whole file, by request path and JSON pointer, with openapi.yaml's bound.
    /// Request paths whose body may be larger than `maxBodyBytes`: an import carries whole files,
    /// and a JSON string of 256 KiB can take six times that once escaped.
    static let largerBodies: [String: Int] = ["/v1/imports": 4 << 20]
    static let longStrings: [String: [String: Int]] = [
        "/v1/imports": ["/aasa": 262_144, "/aasaBase64": 349_528, "/assetlinks": 262_144]
    ]

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
            let body: ByteBuffer
            do { body = try await request.collectBody(upTo: maxBodyBytes) } catch is NIOTooManyBytesError {
                throw HTTPError(.contentTooLarge)
            }
            if request.headers[.contentType]?.hasPrefix("application/json") == true,
                let parsed = try? JSONParser.parse(Array(body.readableBytesView))
            {
                try Self.check(parsed.value, at: [], long: Self.longStrings[request.uri.path] ?? [:])
                if let duplicate = parsed.duplicateKeys.first {
                    let field = duplicate.objectPath.appending(duplicate.key).description
                    throw ServiceError.invalid(
                        field: field, rule: "duplicate-key",
                        "\(duplicate.key) is given twice in one object; give it once, with the one value meant")
                }
            }
        }
        return try await next(request, context)
    }

    /// The first value of the body that breaks one of the rules above, as a 400.
    static func check(_ value: JSONValue, at path: [String], long: [String: Int] = [:]) throws {
        func pointer(_ extra: [String] = []) -> String { JSONPointer(tokens: path + extra).description }
        switch value {
        case .null:
            throw ServiceError.badRequest(
                "null is not a value here; leave the field out instead", field: pointer(), rule: "type")
        case .string(let text):
            try checkText(text, field: pointer(), max: long[pointer()] ?? maxStringBytes)
        case .array(let items):
            for (i, item) in items.enumerated() { try check(item, at: path + [String(i)], long: long) }
        case .object(let object):
            for member in object {
                try checkText(member.key, field: pointer([member.key]))
                try check(member.value, at: path + [member.key], long: long)
            }
        default:
            break
        }
    }

    private static func checkText(_ text: String, field: String, max: Int = maxStringBytes) throws {
        if text.utf8.contains(0) {
            throw ServiceError.badRequest("U+0000 is not allowed in text", field: field, rule: "no-nul")
        }
        if text.utf8.count > max {
            throw ServiceError.badRequest("a string is at most \(max) bytes", field: field, rule: "maxLength")
        }
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
