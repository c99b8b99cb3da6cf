import AASAModel

/// Play Console's snippet read for an app's `importPlaySigningKeys`: its fingerprints, or a 422
/// naming each broken field of the snippet (`/0/target/package_name`, rule `package`, for a snippet
/// copied from another app).
package enum PlaySigningKeys {
    package static func read(_ snippet: JSONValue, appID: String) throws -> [String] {
        let (keys, problems) = PlaySigningSnippet.read(snippet, package: appID)
        guard problems.isEmpty else {
            throw ServiceError.invalid(
                problems.map { FieldError(field: $0.pointer, rule: $0.rule, message: $0.message) },
                detail: "the body is not Play Console's App signing snippet for \(appID)")
        }
        return keys
    }
}
