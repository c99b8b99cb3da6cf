import AASAModel

/// One broken rule in a request: where (a JSON pointer into the body or the rendered document, or a
/// parameter name), which rule (a stable name or an AASAModel code) and a sentence.
package struct FieldError: Sendable, Codable, Hashable {
    package var field: String
    package var rule: String
    package var message: String

    package init(field: String, rule: String, message: String) {
        self.field = field
        self.rule = rule
        self.message = message
    }
}

/// An AASAModel diagnostic on a rendered document, named by the team, app and rule it is about.
package struct Finding: Sendable, Codable, Equatable {
    package var code: String
    package var path: String
    package var message: String
    package var team: String?
    package var appID: String?
    package var ruleID: String?

    package init(
        code: String, path: String, message: String, team: String? = nil, appID: String? = nil, ruleID: String? = nil
    ) {
        self.code = code
        self.path = path
        self.message = message
        self.team = team
        self.appID = appID
        self.ruleID = ruleID
    }
}

/// Every refusal the services make, in the service's own words: what kind of wrong it is, a slug
/// and a title, and the fields, findings and violations that name it. It holds no HTTP: the edge
/// (`ProblemResponse`) maps each kind to its status and writes RFC 9457 problem+json, once.
package struct ServiceError: Error, Sendable {
    /// What kind of wrong; the edge gives each its HTTP status.
    package enum Kind: Sendable, Equatable {
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

    package var kind: Kind
    package var slug: String
    package var title: String
    package var detail: String?
    package var errors: [FieldError] = []
    package var warnings: [Finding] = []
    /// The methods a path answers (`methodNotAllowed`).
    package var allow: [String] = []
    /// When to try again, in seconds (`tooManyRequests`).
    package var retryAfter: Int?
    /// What a domain policy found (broken golden URLs, opened protected paths, budgets), one
    /// object each.
    package var violations: [JSONValue] = []
    /// A domain policy's refusal, which an admin may force past (`PolicyOverride`).
    package var overridable = false

    package init(
        kind: Kind, slug: String, title: String, detail: String? = nil, errors: [FieldError] = [],
        warnings: [Finding] = [], allow: [String] = [], retryAfter: Int? = nil, violations: [JSONValue] = [],
        overridable: Bool = false
    ) {
        self.kind = kind
        self.slug = slug
        self.title = title
        self.detail = detail
        self.errors = errors
        self.warnings = warnings
        self.allow = allow
        self.retryAfter = retryAfter
        self.violations = violations
        self.overridable = overridable
    }

    package static func badRequest(_ detail: String, field: String? = nil, rule: String = "syntax") -> ServiceError {
        ServiceError(
            kind: .badRequest, slug: "bad-request", title: "The request cannot be read", detail: detail,
            errors: field.map { [FieldError(field: $0, rule: rule, message: detail)] } ?? [])
    }

    package static func unauthorized(_ detail: String) -> ServiceError {
        ServiceError(kind: .unauthorized, slug: "unauthorized", title: "Authentication required", detail: detail)
    }

    package static func forbidden(_ detail: String) -> ServiceError {
        ServiceError(kind: .forbidden, slug: "forbidden", title: "Not allowed", detail: detail)
    }

    package static func notFound(_ detail: String) -> ServiceError {
        ServiceError(kind: .notFound, slug: "not-found", title: "Not found", detail: detail)
    }

    package static func conflict(_ detail: String, field: String? = nil, rule: String = "conflict") -> ServiceError {
        ServiceError(
            kind: .conflict, slug: "conflict", title: "Conflict", detail: detail,
            errors: field.map { [FieldError(field: $0, rule: rule, message: detail)] } ?? [])
    }

    package static func preconditionFailed(current: String) -> ServiceError {
        ServiceError(
            kind: .preconditionFailed, slug: "precondition-failed", title: "The resource has changed",
            detail:
                "If-Match does not match the current version \(current); read it again and retry. Nothing was changed.",
            errors: [FieldError(field: "If-Match", rule: "version", message: "the current ETag is \(current)")])
    }

    package static func invalid(_ errors: [FieldError], warnings: [Finding] = [], detail: String? = nil) -> ServiceError
    {
        ServiceError(
            kind: .invalid, slug: "invalid", title: "The change breaks a rule",
            detail: detail ?? listed(errors.map { "\($0.field): \($0.message)" }),
            errors: errors, warnings: warnings)
    }

    /// At most five of `items` in a sentence, then how many more: every `detail` that names a list
    /// of errors or violations is written through this (issue 49: a detail listing 340,000 errors).
    package static func listed(_ items: [String]) -> String {
        let shown = items.prefix(5).joined(separator: "; ")
        return items.count > 5 ? shown + "; … and \(items.count - 5) more" : shown
    }

    package static func invalid(field: String, rule: String, _ message: String) -> ServiceError {
        invalid([FieldError(field: field, rule: rule, message: message)])
    }

    package static func tooManyRequests(_ detail: String, retryAfter seconds: Int) -> ServiceError {
        var problem = ServiceError(
            kind: .tooManyRequests, slug: "rate-limited", title: "Too many requests", detail: detail)
        problem.retryAfter = max(1, seconds)
        return problem
    }

    package static func unavailable(_ detail: String) -> ServiceError {
        ServiceError(kind: .unavailable, slug: "unavailable", title: "Service unavailable", detail: detail)
    }
}

extension ServiceError {
    /// A domain policy's refusal: a conflict (or invalid, for a budget), overridable by an admin with a reason.
    package static func policy(
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
