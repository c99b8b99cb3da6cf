import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import OpenAPIRuntime
import PostgresNIO

/// Every error as an `application/problem+json` response (`RequestMiddleware` answers with it):
/// the API's own problems as they are, unreadable requests as 400 naming the field, lost database
/// connections as 503, and anything unexpected as a generic 500 whose cause is only in the log
/// (with the request ID).
enum ProblemResponse {
    static func problem(for error: any Error, logger: Logger) -> ServiceError {
        switch error {
        case let problem as ServiceError:
            return problem
        case let serverError as ServerError:
            if serverError.underlyingError is ServiceError || serverError.underlyingError is PSQLError
                || serverError.underlyingError is DecodingError
            {
                return problem(for: serverError.underlyingError, logger: logger)
            }
            if (400..<500).contains(serverError.httpStatus.code) {
                return ServiceError(
                    kind: .transport(status: serverError.httpStatus.code), slug: "bad-request",
                    title: "The request cannot be read",
                    detail: serverError.causeDescription)
            }
            return problem(for: serverError.underlyingError, logger: logger)
        case let decoding as DecodingError:
            return problem(decoding)
        case let httpError as HTTPError:
            let status = httpError.status
            let detail =
                status == .contentTooLarge
                ? "the request body is larger than the server accepts"
                : status == .notFound ? "no such endpoint" : httpError.body ?? status.reasonPhrase
            return ServiceError(
                kind: .transport(status: status.code), slug: status == .notFound ? "not-found" : "http-\(status.code)",
                title: status.reasonPhrase, detail: detail)
        case let psql as PSQLError where psql.sqlState == "40P01" || psql.sqlState == "40001":
            // Two transactions crossed (deadlock or serialization failure); PostgreSQL undid one.
            return .conflict("a concurrent change touched the same data; nothing was changed, retry the request")
        case is DatabaseUnavailable:
            logger.error("database unavailable: no connection within the lease timeout")
            return Self.databaseUnavailable
        case let late as StatementDeadlineExceeded:
            // Issue 50: a statement on a connection PostgreSQL closed under it never answered.
            logger.error("database statement past its deadline", metadata: ["error": .string(late.description)])
            return Self.databaseUnavailable
        case is ConnectionAlreadyClosed:
            logger.error("database connection closed under the request")
            return Self.databaseUnavailable
        case let other where String(reflecting: type(of: other)).hasSuffix("ConnectionPoolError"):
            // PostgresNIO's pool gave up (its circuit breaker after failed connection attempts);
            // its error type lives in a module that is not part of PostgresNIO's public API.
            logger.error("database unavailable", metadata: ["error": .string(String(describing: other))])
            return Self.databaseUnavailable
        case let psql as PSQLError where Self.isUnavailable(psql):
            logger.error(
                "database unavailable",
                metadata: ["error": .string(String(describing: psql.code)), "sqlstate": .string(psql.sqlState ?? "")])
            return Self.databaseUnavailable
        default:
            logger.error("unexpected error", metadata: ["error": .string(String(reflecting: error))])
            return ServiceError(
                kind: .internal, slug: "internal", title: "Internal server error",
                detail: "an unexpected error occurred; the request ID identifies it in the server's log")
        }
    }

    /// 503 with `Retry-After`: the database went away under this request (down, failing over, a
    /// connection closed). A write may have committed before its answer was lost: a client retries
    /// it with the same `Idempotency-Key`.
    static var databaseUnavailable: ServiceError {
        var problem = ServiceError.unavailable("the database is unavailable; retry later")
        problem.retryAfter = 1
        return problem
    }

    /// The connection failed, or the server ended it: SQLSTATE class 57P (57P01 terminated by an
    /// administrator or a failover, 57P02 a crash, 57P03 not accepting connections yet) or class 08
    /// (issue 50: those were 500).
    static func isUnavailable(_ error: PSQLError) -> Bool {
        [.connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown]
            .contains(error.code) || error.sqlState?.hasPrefix("57P") == true || error.sqlState?.hasPrefix("08") == true
    }

    /// A body that could not be decoded: which field, and why.
    static func problem(_ error: DecodingError) -> ServiceError {
        func pointer(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "/" : path.map { "/" + ($0.intValue.map(String.init) ?? $0.stringValue) }.joined()
        }
        switch error {
        case .typeMismatch(let type, let context):
            let field = pointer(context.codingPath)
            let found = context.debugDescription.hasPrefix("found ") ? ", \(context.debugDescription)" : ""
            return .badRequest(
                "\(field) is \(DecodingWords.expected(type, at: field))\(found)", field: field, rule: "type")
        case .valueNotFound(let type, let context):
            let field = pointer(context.codingPath)
            return .badRequest(
                "\(field) is \(DecodingWords.expected(type, at: field)), found null", field: field, rule: "type")
        case .keyNotFound(let key, let context):
            let field = pointer(context.codingPath + [key])
            return .badRequest("\(field) is required", field: field, rule: "required")
        case .dataCorrupted(let context):
            let field = pointer(context.codingPath)
            if let value = DecodingWords.invalidEnumValue(context.debugDescription) {
                return .badRequest(DecodingWords.notAllowed(value, at: field), field: field, rule: "enum")
            }
            let reason = context.underlyingError.map { _ in "the body is not valid JSON" } ?? context.debugDescription
            return .badRequest(reason, field: field, rule: "syntax")
        @unknown default:
            return .badRequest("the body cannot be decoded")
        }
    }

    /// The one place a service's kind of wrong becomes an HTTP status.
    static func status(_ kind: ServiceError.Kind) -> HTTPResponse.Status {
        switch kind {
        case .badRequest: .badRequest
        case .unauthorized: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .conflict: .conflict
        case .preconditionFailed: .preconditionFailed
        case .invalid: .unprocessableContent
        case .tooManyRequests: .tooManyRequests
        case .unavailable: .serviceUnavailable
        case .internal: .internalServerError
        case .transport(let status): HTTPResponse.Status(code: status)
        }
    }

    /// The most entries a problem lists in each of `errors`, `warnings` and `violations`; past it
    /// the last entry says how many more there were (issue 49: one request's 340,000 errors made a
    /// 33 MB answer).
    static let maxListed = 100

    static func capped<Item>(_ items: [Item], more: (String) -> Item) -> [Item] {
        guard items.count > maxListed else { return items }
        return Array(items.prefix(maxListed - 1)) + [more("… and \(items.count - maxListed + 1) more")]
    }

    static func response(_ problem: ServiceError, instance: String) -> Response {
        let status = status(problem.kind)
        let body = ProblemBody(
            type: "urn:aasad:problem:\(problem.slug)", title: problem.title, status: Int(status.code),
            detail: problem.detail, instance: instance, requestId: RequestState.current?.requestID,
            errors: problem.errors.isEmpty
                ? nil : capped(problem.errors) { FieldError(field: "", rule: "more", message: $0) },
            warnings: problem.warnings.isEmpty
                ? nil : capped(problem.warnings) { Finding(code: "more", path: "", message: $0) },
            violations: problem.violations.isEmpty
                ? nil : capped(problem.violations) { .object(["more": .string($0)]) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(body)) ?? Data("{\"title\":\"Internal server error\",\"status\":500}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/problem+json"
        if problem.kind == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        if !problem.allow.isEmpty { headers[.allow] = problem.allow.joined(separator: ", ") }
        if let seconds = problem.retryAfter { headers[.retryAfter] = String(seconds) }
        return Response(
            status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: Array(data))))
    }
}

private struct ProblemBody: Encodable {
    var type: String
    var title: String
    var status: Int
    var detail: String?
    var instance: String
    var requestId: String?
    var errors: [FieldError]?
    var warnings: [Finding]?
    var violations: [JSONValue]?
}
