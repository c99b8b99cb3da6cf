import AASAAPI
import AASAModel

/// An app as a request body describes it, checked once for the apps API and a manifest alike: the
/// ID's shape for its platform and length, the services the platform has, fingerprints only (and
/// always) on Android, `rulesFrom` only on Android and within bounds. Every broken part is a field
/// error under `pointer`, all of them in one 422 (`""` for the apps API's body, `/apps/3` in a manifest).
struct AppInput: Sendable {
    var appID: String
    var platform: AppPlatform
    var services: [AppService]
    /// nil for an iOS app.
    var fingerprints: [String]?
    var rulesFrom: String?

    static func check(
        appID: String, platform: AppPlatform, services: [Components.Schemas.Service]?, fingerprints: [String]?,
        rulesFrom: String?, pointer: String
    ) throws -> AppInput {
        var errors: [FieldError] = []
        if appID.count > 255 {
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
            checkedServices = try APIImplementation.services(services, field: "\(pointer)/services", platform: platform)
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
                checkedFingerprints = try APIImplementation.fingerprints(fingerprints, field: "\(pointer)/fingerprints")
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
}
