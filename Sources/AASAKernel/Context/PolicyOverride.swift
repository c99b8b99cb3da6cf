import Foundation

/// An admin's override of the domain policies for one change: `?force=true&reason=…` on any
/// request that changes a domain. A policy's refusal (a broken golden URL, an opened protected
/// path, a budget) is then let through and recorded as its own audit event, `policy.override`,
/// which the next revision of the domain lists. AASAModel's validation and the grants are never
/// overridden.
package struct PolicyOverride: Sendable {
    package var reason: String

    package init(reason: String) { self.reason = reason }

    /// The override a request asks for: nil without `force=true`; 403 for a caller who is not an
    /// admin, 400 without a reason.
    package static func from(force: String?, reason: String?, principal: Principal) throws -> PolicyOverride? {
        if let reason, reason.unicodeScalars.count > 1000 {
            throw ServiceError.badRequest("a reason is at most 1000 characters", field: "reason", rule: "maxLength")
        }
        guard let force else { return nil }
        switch force {
        case "false": return nil
        case "true": break
        default: throw ServiceError.badRequest("force is true or false", field: "force", rule: "boolean")
        }
        guard principal.isAdmin else {
            throw ServiceError.forbidden("only an admin may force a change past the domain policies")
        }
        let reason = (reason ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty else {
            throw ServiceError.badRequest("force needs a reason: say why", field: "reason", rule: "required")
        }
        return PolicyOverride(reason: reason)
    }
}
