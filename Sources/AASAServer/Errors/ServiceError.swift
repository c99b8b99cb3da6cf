import AASAModel

/// One broken rule in a request: where (a JSON pointer into the body or the rendered document, or a
/// parameter name), which rule (a stable name or an AASAModel code) and a sentence.
struct FieldError: Sendable, Codable, Hashable {
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

/// Every refusal the services make, in the service's own words: what kind of wrong it is, a slug
/// and a title, and the fields, findings and violations that name it. It holds no HTTP: the edge
/// (`ProblemMiddleware`) maps each kind to its status and writes RFC 9457 problem+json, once.
struct ServiceError: Error, Sendable {
    /// What kind of wrong; the edge gives each its HTTP status.
    enum Kind: Sendable, Equatable {
        /// The request cannot be read.
        case badRequest
        case unauthorized
        case forbidden
        case notFound
        case methodNotAllowed
        /// It collides with the state (a duplicate, a policy a change would break).
        case conflict
        /// `If-Match` names an old version.
        case preconditionFailed
        /// Readable, but it breaks a rule: the fields name which.
        case invalid
        case tooManyRequests
        case unavailable
        case `internal`
        /// Raised by the HTTP layer itself (a body too large, a route that does not exist), with
        /// the status it gave; never thrown by a service.
        case transport(status: Int)
    }

    var kind: Kind
    var slug: String
    var title: String
    var detail: String?
    var errors: [FieldError] = []
    var warnings: [Finding] = []
    /// The methods a path answers (`methodNotAllowed`).
    var allow: [String] = []
    /// When to try again, in seconds (`tooManyRequests`).
    var retryAfter: Int?
    /// What a domain policy found (broken golden URLs, opened protected paths, budgets), one
    /// object each.
    var violations: [JSONValue] = []
    /// A domain policy's refusal, which an admin may force past (`PolicyOverride`).
    var overridable = false

    static func badRequest(_ detail: String, field: String? = nil, rule: String = "syntax") -> ServiceError {
        ServiceError(
            kind: .badRequest, slug: "bad-request", title: "The request cannot be read", detail: detail,
            errors: field.map { [FieldError(field: $0, rule: rule, message: detail)] } ?? [])
    }

    static func unauthorized(_ detail: String) -> ServiceError {
        ServiceError(kind: .unauthorized, slug: "unauthorized", title: "Authentication required", detail: detail)
    }

    static func forbidden(_ detail: String) -> ServiceError {
        ServiceError(kind: .forbidden, slug: "forbidden", title: "Not allowed", detail: detail)
    }

    static func notFound(_ detail: String) -> ServiceError {
        ServiceError(kind: .notFound, slug: "not-found", title: "Not found", detail: detail)
    }

    static func conflict(_ detail: String, field: String? = nil, rule: String = "conflict") -> ServiceError {
        ServiceError(
            kind: .conflict, slug: "conflict", title: "Conflict", detail: detail,
            errors: field.map { [FieldError(field: $0, rule: rule, message: detail)] } ?? [])
    }

    static func preconditionFailed(current: String) -> ServiceError {
        ServiceError(
            kind: .preconditionFailed, slug: "precondition-failed", title: "The resource has changed",
            detail:
                "If-Match does not match the current version \(current); read it again and retry. Nothing was changed.",
            errors: [FieldError(field: "If-Match", rule: "version", message: "the current ETag is \(current)")])
    }

    static func invalid(_ errors: [FieldError], warnings: [Finding] = [], detail: String? = nil) -> ServiceError {
        ServiceError(
            kind: .invalid, slug: "invalid", title: "The change breaks a rule",
            detail: detail ?? errors.map { "\($0.field): \($0.message)" }.joined(separator: "; "),
            errors: errors, warnings: warnings)
    }

    static func invalid(field: String, rule: String, _ message: String) -> ServiceError {
        invalid([FieldError(field: field, rule: rule, message: message)])
    }

    static func tooManyRequests(_ detail: String, retryAfter seconds: Int) -> ServiceError {
        var problem = ServiceError(
            kind: .tooManyRequests, slug: "rate-limited", title: "Too many requests", detail: detail)
        problem.retryAfter = max(1, seconds)
        return problem
    }

    static func unavailable(_ detail: String) -> ServiceError {
        ServiceError(kind: .unavailable, slug: "unavailable", title: "Service unavailable", detail: detail)
    }
}

extension ServiceError {
    /// A domain policy's refusal: a conflict (or invalid, for a budget), overridable by an admin with a reason.
    static func policy(
        _ kind: Kind, slug: String, title: String, detail: String, violations: [JSONValue]
    ) -> ServiceError {
        var problem = ServiceError(
            kind: kind, slug: slug, title: title,
            detail: detail + "; an admin may override with force=true and a reason")
        problem.violations = violations
        problem.overridable = true
        return problem
    }
}
