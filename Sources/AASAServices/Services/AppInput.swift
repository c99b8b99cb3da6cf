import AASAKernel
import AASAModel
import AASAOutbound
import AASARules

/// An app as a request body describes it, checked once for the apps API and a manifest alike: the
/// ID's shape for its platform and length, the services the platform has, fingerprints only (and
/// always) on Android, `rulesFrom` only on Android and within bounds. Every broken part is a field
/// error under `pointer`, all of them in one 422 (`""` for the apps API's body, `/apps/3` in a manifest).
package struct AppInput: Sendable {
    package var appID: String
    package var platform: AppPlatform
    package var services: [AppService]
    /// nil for an iOS app.
    package var fingerprints: [String]?
    package var rulesFrom: String?

    /// `services` by their names (the contract's enum, so none unknown); nil: applinks alone.
    package static func check(
        appID: String, platform: AppPlatform, services: [String]?, fingerprints: [String]?,
        rulesFrom: String?, pointer: String
    ) throws -> AppInput {
        var errors: [FieldError] = []
        if appID.unicodeScalars.count > 255 {
            errors.append(
                FieldError(field: "\(pointer)/appID", rule: "maxLength", message: "an app ID is at most 255 characters")
            )
        } else if let problem = platform.identifierProblem(appID) {
            errors.append(
                FieldError(
                    field: "\(pointer)/appID", rule: platform == .ios ? "app-id" : "package-name", message: problem))
        }
        var checkedServices: [AppService] = []
        do {
            checkedServices = try Self.services(services, field: "\(pointer)/services", platform: platform)
        } catch let problem as ServiceError {
            errors += problem.errors
        } catch {}
        var checkedFingerprints: [String]?
        switch platform {
        case .ios:
            if rulesFrom != nil {
                errors.append(
                    FieldError(
                        field: "\(pointer)/rulesFrom", rule: "platform",
                        message: "only an Android app follows another app's rules"))
            }
            if fingerprints != nil {
                errors.append(
                    FieldError(
                        field: "\(pointer)/fingerprints", rule: "platform",
                        message: "an iOS app has no signing certificate fingerprints; leave them out"))
            }
        case .android:
            do {
                checkedFingerprints = try Self.fingerprints(fingerprints, field: "\(pointer)/fingerprints")
            } catch let problem as ServiceError {
                errors += problem.errors
            } catch {}
        }
        if let rulesFrom, rulesFrom.count > 255 {
            errors.append(
                FieldError(
                    field: "\(pointer)/rulesFrom", rule: "maxLength", message: "an app ID is at most 255 characters"))
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }
        return AppInput(
            appID: appID, platform: platform, services: checkedServices, fingerprints: checkedFingerprints,
            rulesFrom: rulesFrom)
    }

    package static func services(_ list: [String]?, field: String, platform: AppPlatform = .ios) throws
        -> [AppService]
    {
        let services = (list ?? [AppService.applinks.rawValue]).compactMap { AppService(rawValue: $0) }
        guard Set(services).count == services.count else {
            throw ServiceError.invalid(field: field, rule: "unique", "a service is listed twice")
        }
        if let bad = services.first(where: { !platform.services.contains($0) }) {
            throw ServiceError.invalid(
                field: field, rule: "platform",
                """
                an \(platform.rawValue) app has no \(bad.rawValue) service (it has \
                \(platform.services.map(\.rawValue).joined(separator: ", ")))
                """
            )
        }
        return AppService.allCases.filter(services.contains)
    }

    /// `rulesFrom` within openapi.yaml's bound (the generated code does not check it).
    package static func rulesFrom(_ value: String?) throws -> String? {
        if let value, value.unicodeScalars.count > 255 {
            throw ServiceError.invalid(field: "/rulesFrom", rule: "maxLength", "an app ID is at most 255 characters")
        }
        return value
    }

    /// An Android app's fingerprints: 1 to 20, each 32 colon-separated upper-case hex bytes (a
    /// lower-case, colon-less or SHA-1 one is refused with its fix), none twice.
    package static func fingerprints(_ list: [String]?, field: String) throws -> [String] {
        guard let list, !list.isEmpty else {
            throw ServiceError.invalid(
                field: field, rule: "required", "an Android app lists its signing certificates' SHA-256 fingerprints")
        }
        guard list.count <= 20 else {
            throw ServiceError.invalid(field: field, rule: "maxItems", "at most 20 fingerprints")
        }
        var errors: [FieldError] = []
        for (i, f) in list.enumerated() {
            if f.count > 200 {
                errors.append(
                    FieldError(
                        field: "\(field)/\(i)", rule: "maxLength", message: "a fingerprint is at most 200 characters"))
            } else if let problem = AssetLinksValidator.fingerprintProblem(f) {
                errors.append(
                    FieldError(
                        field: "\(field)/\(i)", rule: "fingerprint",
                        message: "\(problem.code.rawValue): \(problem.message)"))
            } else if list[..<i].contains(f) {
                errors.append(FieldError(field: "\(field)/\(i)", rule: "unique", message: "\(f) is listed twice"))
            }
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }
        return list
    }

    /// Key labels as a body gives them, checked before anything is read (openapi.yaml's bounds, so
    /// before `If-Match`): at most 20, each fingerprint at most 200 characters, each label a name
    /// (`play-signing`, `upload`, `debug`, or the team's own word).
    package static func checkKeyLabels(_ labels: [String: String]?, pointer: String = "") throws {
        guard let labels else { return }
        var errors: [FieldError] = []
        if labels.count > 20 {
            errors.append(
                FieldError(field: "\(pointer)/keyLabels", rule: "maxProperties", message: "at most 20 labels"))
        }
        for (fingerprint, label) in labels.sorted(by: { $0.key < $1.key }) {
            let at = pointer + (JSONPointer.root / "keyLabels" / fingerprint).description
            if fingerprint.unicodeScalars.count > 200 {
                errors.append(
                    FieldError(field: at, rule: "maxLength", message: "a fingerprint is at most 200 characters"))
            } else if !BuildsInput.isName(label) {
                errors.append(
                    FieldError(
                        field: at, rule: "label",
                        message:
                            "a label is 1 to 32 lower-case letters, digits and hyphens (play-signing, upload, debug...)"
                    ))
            }
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }
    }

    /// Every labelled fingerprint is one the app lists (an iOS app, listing none, labels none).
    package static func checkLabelled(_ labels: [String: String]?, fingerprints: [String]?, pointer: String = "") throws
    {
        guard let labels else { return }
        let listed = Set(fingerprints ?? [])
        let errors = labels.keys.sorted().filter { !listed.contains($0) }.map {
            FieldError(
                field: pointer + (JSONPointer.root / "keyLabels" / $0).description, rule: "listed",
                message: "\($0) is not one of the app's fingerprints; a label names a key the app lists")
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }
    }
}
