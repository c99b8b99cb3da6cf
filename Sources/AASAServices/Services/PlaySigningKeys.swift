import AASAKernel
import AASAModel
import AASAOutbound
import AASARules

/// Play Console's snippet read for an app's `importPlaySigningKeys`: its fingerprints, or a 422
/// naming each broken field of the snippet (`/0/target/package_name`, rule `package`, for a snippet
/// copied from another app).
package enum PlaySigningKeys {
    /// openapi.yaml's `maxItems` for the snippet: an app lists at most 20 keys.
    package static let maxStatements = 20

    package static func read(_ snippet: JSONValue, appID: String) throws -> [String] {
        // Counted before any statement is walked (issue 49: 340,000 empty statements gave as many
        // errors, a 33 MB answer).
        if case .array(let statements) = snippet, statements.count > maxStatements {
            throw ServiceError.invalid(
                field: "", rule: "maxItems",
                "the snippet has \(statements.count) statements; Play Console's has one per key, at most "
                    + "\(maxStatements)")
        }
        let (keys, problems) = PlaySigningSnippet.read(snippet, package: appID)
        guard problems.isEmpty else {
            throw ServiceError.invalid(
                problems.map { FieldError(field: $0.pointer, rule: $0.rule, message: $0.message) },
                detail: "the body is not Play Console's App signing snippet for \(appID)")
        }
        return keys
    }
}
