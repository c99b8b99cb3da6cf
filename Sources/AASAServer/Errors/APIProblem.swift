import AASAModel
import HTTPTypes

/// One broken rule in a request: where (a JSON pointer into the body or the rendered document, or a
/// parameter name), which rule (a stable name or an AASAModel code) and a sentence.
struct FieldError: Sendable, Codable, Equatable {
    var field: String
    var rule: String
    var message: String
}

/// An AASAModel diagnostic on a rendered document, named by the team, app and rule it is about.
struct Finding: Sendable, Codable, Equatable {
    var code: String
    var path: String
    var message: String
    var team: String?
    var appID: String?
    var ruleID: String?
}

/// Every error the API answers with: RFC 9457 problem details. Thrown by handlers; the problem
/// middleware writes it as `application/problem+json`.
struct APIProblem: Error, Sendable {
    var status: HTTPResponse.Status
    var slug: String
    var title: String
    var detail: String?
    var errors: [FieldError] = []
    var warnings: [Finding] = []
    /// The `Allow` header of a 405.
    var allow: [String] = []
    /// The `Retry-After` header of a 429, in seconds.
    var retryAfter: Int?
    /// What a domain policy found (broken golden URLs, opened protected paths, budgets), one
    /// object each.
    var violations: [JSONValue] = []
    /// A domain policy's refusal, which an admin may force past (`PolicyOverride`).
    var overridable = false

    static func badRequest(_ detail: String, field: String? = nil, rule: String = "syntax") -> APIProblem {
        APIProblem(
            status: .badRequest, slug: "bad-request", title: "The request cannot be read", detail: detail,
            errors: field.map { [FieldError(field: $0, rule: rule, message: detail)] } ?? [])
    }

    static func unauthorized(_ detail: String) -> APIProblem {
        APIProblem(status: .unauthorized, slug: "unauthorized", title: "Authentication required", detail: detail)
    }

    static func forbidden(_ detail: String) -> APIProblem {
        APIProblem(status: .forbidden, slug: "forbidden", title: "Not allowed", detail: detail)
    }

    static func notFound(_ detail: String) -> APIProblem {
        APIProblem(status: .notFound, slug: "not-found", title: "Not found", detail: detail)
    }

    static func conflict(_ detail: String, field: String? = nil, rule: String = "conflict") -> APIProblem {
        APIProblem(
            status: .conflict, slug: "conflict", title: "Conflict", detail: detail,
            errors: field.map { [FieldError(field: $0, rule: rule, message: detail)] } ?? [])
    }

    static func preconditionFailed(current: String) -> APIProblem {
        APIProblem(
            status: .preconditionFailed, slug: "precondition-failed", title: "The resource has changed",
            detail:
                "If-Match does not match the current version \(current); read it again and retry. Nothing was changed.",
            errors: [FieldError(field: "If-Match", rule: "version", message: "the current ETag is \(current)")])
    }

    static func invalid(_ errors: [FieldError], warnings: [Finding] = [], detail: String? = nil) -> APIProblem {
        APIProblem(
            status: .unprocessableContent, slug: "invalid", title: "The change breaks a rule",
            detail: detail ?? errors.map { "\($0.field): \($0.message)" }.joined(separator: "; "),
            errors: errors, warnings: warnings)
    }

    static func invalid(field: String, rule: String, _ message: String) -> APIProblem {
        invalid([FieldError(field: field, rule: rule, message: message)])
    }

    static func tooManyRequests(_ detail: String, retryAfter seconds: Int) -> APIProblem {
        var problem = APIProblem(
            status: .tooManyRequests, slug: "rate-limited", title: "Too many requests", detail: detail)
        problem.retryAfter = max(1, seconds)
        return problem
    }

    static func unavailable(_ detail: String) -> APIProblem {
        APIProblem(status: .serviceUnavailable, slug: "unavailable", title: "Service unavailable", detail: detail)
    }
}

extension APIProblem {
    /// A domain policy's refusal: 409 (or 422 for a budget), overridable by an admin with a reason.
    static func policy(
        _ status: HTTPResponse.Status, slug: String, title: String, detail: String, violations: [JSONValue]
    ) -> APIProblem {
        var problem = APIProblem(
            status: status, slug: slug, title: title,
            detail: detail + "; an admin may override with force=true and a reason")
        problem.violations = violations
        problem.overridable = true
        return problem
    }
}
