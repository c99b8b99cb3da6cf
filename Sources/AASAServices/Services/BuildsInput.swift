import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore

/// An app's builds as a request body gives them, checked against the app and the organisation's
/// environments: one build per known environment; the build's ID has the app's platform's shape;
/// an Android build lists 1 to 20 labelled fingerprints, an iOS build none; no ID twice. Every
/// broken part is a field error under `/builds/i`, all of them in one 422.
package struct BuildsInput: Sendable {
    package struct Item: Sendable {
        package var environment: String
        package var appID: String
        package var fingerprints: [LabelledFingerprint]?
        package var playSigningAbsent: Bool

        package init(
            environment: String, appID: String, fingerprints: [LabelledFingerprint]? = nil, playSigningAbsent: Bool
        ) {
            self.environment = environment
            self.appID = appID
            self.fingerprints = fingerprints
            self.playSigningAbsent = playSigningAbsent
        }
    }

    /// 1 to 32 lower-case letters, digits and hyphens, not starting with a hyphen (as environment names).
    package static func isName(_ s: String) -> Bool {
        guard let first = s.utf8.first, first != UInt8(ascii: "-"), s.utf8.count <= 32 else { return false }
        return s.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                || $0 == UInt8(ascii: "-")
        }
    }

    /// openapi.yaml's bounds, checked before anything is read (so before `If-Match`): a body out of
    /// them is 422 whatever the state.
    package static func checkBounds(_ items: [Item], pointer: String = "") throws {
        var errors: [FieldError] = []
        if items.count > 20 {
            errors.append(FieldError(field: "\(pointer)/builds", rule: "maxItems", message: "at most 20 builds"))
        }
        for (i, item) in items.enumerated() {
            let at = "\(pointer)/builds/\(i)"
            if item.environment.utf8.count > 32 {
                errors.append(
                    FieldError(field: "\(at)/environment", rule: "maxLength", message: "at most 32 characters"))
            }
            if item.appID.unicodeScalars.count > 255 {
                errors.append(FieldError(field: "\(at)/appID", rule: "maxLength", message: "at most 255 characters"))
            }
            if (item.fingerprints?.count ?? 0) > 20 {
                errors.append(FieldError(field: "\(at)/fingerprints", rule: "maxItems", message: "at most 20"))
            }
            for (j, f) in (item.fingerprints ?? []).enumerated() {
                if f.sha256.count > 200 {
                    errors.append(
                        FieldError(field: "\(at)/fingerprints/\(j)/sha256", rule: "maxLength", message: "at most 200"))
                }
                if f.label.utf8.count > 32 {
                    errors.append(
                        FieldError(field: "\(at)/fingerprints/\(j)/label", rule: "maxLength", message: "at most 32"))
                }
            }
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }
    }

    /// An environment's name as a body gives it: at most 32 bytes (openapi.yaml's bound), checked
    /// before anything is read.
    package static func checkEnvironmentName(_ name: String?, field: String) throws {
        if let name, name.utf8.count > 32 {
            throw ServiceError.invalid(
                field: field, rule: "maxLength", "an environment's name is at most 32 characters")
        }
    }

    package static func check(
        _ items: [Item], app: AppRecord, environments: [String], pointer: String = ""
    ) throws -> [BuildRecord] {
        // The bounds first (the entry points checked them already, before If-Match; a caller that
        // did not still gets them), then what they leave to judge.
        try checkBounds(items, pointer: pointer)
        var errors: [FieldError] = []
        func fail(_ field: String, _ rule: String, _ message: String) {
            errors.append(FieldError(field: field, rule: rule, message: message))
        }
        for (i, item) in items.enumerated() {
            let at = "\(pointer)/builds/\(i)"
            if !environments.contains(item.environment) {
                fail(
                    "\(at)/environment", "unknown-environment",
                    "there is no environment \(item.environment) (there are \(environments.joined(separator: ", ")))")
            } else if items[..<i].contains(where: { $0.environment == item.environment }) {
                fail("\(at)/environment", "unique", "\(app.appID) has one build per environment")
            }
            if let problem = app.platform.identifierProblem(item.appID) {
                fail("\(at)/appID", app.platform == .ios ? "app-id" : "package-name", problem)
            } else if items[..<i].contains(where: { $0.appID == item.appID }) {
                fail("\(at)/appID", "unique", "two builds cannot have one app ID (\(item.appID))")
            }
            switch app.platform {
            case .ios:
                if item.fingerprints != nil {
                    fail("\(at)/fingerprints", "platform", "an iOS build has no signing certificates; leave them out")
                }
                if item.playSigningAbsent {
                    fail("\(at)/playSigningAbsent", "platform", "only an Android build is signed by Google Play")
                }
            case .android:
                errors += fingerprintErrors(item.fingerprints ?? [], at: "\(at)/fingerprints")
            }
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }
        return items.map {
            BuildRecord(
                appPK: app.id, appID: app.appID, environment: $0.environment, identity: $0.appID,
                fingerprints: $0.fingerprints ?? [], playSigningAbsent: $0.playSigningAbsent)
        }
    }

    private static func fingerprintErrors(_ list: [LabelledFingerprint], at field: String) -> [FieldError] {
        guard !list.isEmpty else {
            return [
                FieldError(
                    field: field, rule: "required",
                    message: "an Android build lists its signing certificates' SHA-256 fingerprints")
            ]
        }
        var errors: [FieldError] = []
        for (j, f) in list.enumerated() {
            if let problem = AssetLinksValidator.fingerprintProblem(f.sha256) {
                errors.append(
                    FieldError(
                        field: "\(field)/\(j)/sha256", rule: "fingerprint",
                        message: "\(problem.code.rawValue): \(problem.message)"))
            } else if list[..<j].contains(where: { $0.sha256 == f.sha256 }) {
                errors.append(
                    FieldError(field: "\(field)/\(j)/sha256", rule: "unique", message: "\(f.sha256) is listed twice"))
            }
            if !isName(f.label) {
                errors.append(
                    FieldError(
                        field: "\(field)/\(j)/label", rule: "label",
                        message:
                            "a label is 1 to 32 lower-case letters, digits and hyphens (play-signing, upload, debug...)"
                    ))
            }
        }
        return errors
    }
}
