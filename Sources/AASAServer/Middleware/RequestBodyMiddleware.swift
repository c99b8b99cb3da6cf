import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import Hummingbird
import NIOCore

/// What a request body must be, checked after authentication (issue 49: a missing or unknown token
/// is 401 before any byte of a body is parsed) and before the generated decoder reads it:
/// - a route only an admin may call refuses any other token before parsing, and a route that
///   changes an app refuses another team's token (404) or a read token (403) before parsing
///   (`EarlyRefusal`);
/// - the body is parsed once, in time linear in its size;
/// - `null` in a JSON body is 400: no field of this API takes null, and the generated decoder
///   would read it as "absent";
/// - U+0000 anywhere (a body string or key) is 400 naming where: PostgreSQL refuses it in text;
/// - a JSON string longer than `maxStringBytes` is 400 (`maxLength`): fields with a tighter bound
///   in openapi.yaml are checked where they are read, and the few that carry a whole file
///   (`longStrings`) have their own, wider bound;
/// - a key given twice in one JSON object is 422 naming it: the generated decoder would silently
///   keep one of the two values (in an import's team map, two teams claiming one prefix);
/// - a date-time the contract takes, in the query or the body, that is not in years 0001-9999
///   (`BoundedDateTranscoder` refuses it) is 400 naming the parameter or the field.
struct RequestBodyMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let early: EarlyRefusal
    static let maxStringBytes = 4096
    /// Body fields that carry a whole file, by request path and JSON pointer, with openapi.yaml's bound.
    static let longStrings: [String: [String: Int]] = [
        "/v1/imports": ["/aasa": 262_144, "/aasaBase64": 349_528, "/assetlinks": 262_144, "/webauthn": 65_536]
    ]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var parsed: JSONValue?
        // A path no route matches is 404 whatever its body says: the body is never read.
        if request.method != .get && request.method != .head, let route = context.endpointPath {
            try await early.check(request, route: route, parameters: context.parameters)
            if request.headers[.contentType]?.hasPrefix("application/json") == true {
                var request = request
                let body = try await request.collectBody(upTo: .max)
                if let document = try? JSONParser.parse(Array(body.readableBytesView)) {
                    try Self.check(document.value, at: [], long: Self.longStrings[request.uri.path] ?? [:])
                    if let duplicate = document.duplicateKeys.first {
                        let field = duplicate.objectPath.appending(duplicate.key).description
                        throw ServiceError.invalid(
                            field: field, rule: "duplicate-key",
                            "\(duplicate.key) is given twice in one object; give it once, with the one value meant")
                    }
                    parsed = document.value
                }
            }
        }
        do {
            return try await next(request, context)
        } catch {
            guard let date = DateOutOfRange.within(error) else { throw error }
            let field = Self.field(holding: date.text, query: request.uri.queryParameters, body: parsed)
            throw ServiceError.badRequest(
                "\(field ?? "a date-time") must be a date-time in years 0001-9999 (RFC 3339, like "
                    + "2026-11-28T12:00:00Z); \(date.text) is not", field: field ?? "date-time", rule: "date-range")
        }
    }

    /// Where a refused date-time was given: the query parameter, or the body's JSON pointer.
    static func field(holding text: String, query: Parameters, body: JSONValue?) -> String? {
        if let name = query.first(where: { String($0.value.prefix(64)) == text })?.key { return String(name) }
        guard let body else { return nil }
        func find(_ value: JSONValue, _ path: [String]) -> [String]? {
            switch value {
            case .string(let string) where String(string.prefix(64)) == text:
                return path
            case .array(let items):
                for (i, item) in items.enumerated() { if let found = find(item, path + [String(i)]) { return found } }
            case .object(let object):
                for member in object { if let found = find(member.value, path + [member.key]) { return found } }
            default: break
            }
            return nil
        }
        return find(body, []).map { JSONPointer(tokens: $0).description }
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
}
