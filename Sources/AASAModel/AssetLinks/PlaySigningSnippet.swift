/// The Digital Asset Links snippet Play Console shows under App integrity → App signing: a JSON
/// array of statements whose target is the app, with the SHA-256 fingerprint of the key Google
/// signs it with. Teams retype that fingerprint by hand and get a byte wrong; reading the snippet
/// instead takes the package and keys exactly as Google gave them.
///
/// ```json
/// [{"relation": ["delegate_permission/common.handle_all_urls"],
///   "target": {"namespace": "android_app", "package_name": "com.example.shop",
///              "sha256_cert_fingerprints": ["14:6D:E9:…"]}}]
/// ```
public enum PlaySigningSnippet {
    public struct Problem: Sendable, Equatable {
        /// Where in the snippet, as a JSON pointer (`/0/target/package_name`).
        public var pointer: String
        public var rule: String
        public var message: String
    }

    /// The snippet's fingerprints for `package`, in order, each once, and every problem found (the
    /// keys count only when there is none). A statement for another package is a problem: the snippet
    /// was copied from the wrong app.
    public static func read(_ root: JSONValue, package: String) -> (keys: [String], problems: [Problem]) {
        var problems: [Problem] = []
        func refuse(_ at: JSONPointer, _ rule: String, _ message: String) {
            problems.append(Problem(pointer: at.description, rule: rule, message: message))
        }
        guard let statements = root.arrayValue else {
            refuse(.root, "type", "Play Console's snippet is a JSON array of statements")
            return ([], problems)
        }
        if statements.isEmpty { refuse(.root, "minItems", "the snippet has no statement") }
        var keys: [String] = []
        for (i, statement) in statements.enumerated() {
            let at = JSONPointer.root / i
            guard let target = statement.objectValue?["target"]?.objectValue else {
                refuse(at / "target", "required", "each statement has a target object")
                continue
            }
            if target["namespace"]?.stringValue != "android_app" {
                refuse(at / "target" / "namespace", "namespace", "the target's namespace is android_app")
            }
            guard let name = target["package_name"]?.stringValue else {
                refuse(at / "target" / "package_name", "required", "the target names its package_name")
                continue
            }
            if name != package {
                refuse(
                    at / "target" / "package_name", "package",
                    "the snippet is for \(name), not \(package): copy it from \(package)'s App integrity page")
            }
            guard let list = target["sha256_cert_fingerprints"]?.arrayValue, !list.isEmpty else {
                refuse(
                    at / "target" / "sha256_cert_fingerprints", "required",
                    "the target lists its SHA-256 certificate fingerprints")
                continue
            }
            for (k, value) in list.enumerated() {
                let field = at / "target" / "sha256_cert_fingerprints" / k
                guard let key = value.stringValue else {
                    refuse(field, "fingerprint", "a fingerprint is a string")
                    continue
                }
                if let problem = AssetLinksValidator.fingerprintProblem(key) {
                    refuse(field, "fingerprint", "\(problem.code.rawValue): \(problem.message)")
                } else if !keys.contains(key) {
                    keys.append(key)
                }
            }
        }
        if problems.isEmpty && keys.count > 20 { refuse(.root, "maxItems", "at most 20 fingerprints") }
        return (keys, problems)
    }
}
