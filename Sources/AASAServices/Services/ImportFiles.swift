import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import Foundation

/// The files an import reads, as Apple and Google would read them, and the apps they name, one
/// list for both platforms with each app's team by the map. Every refusal is a 422 naming the
/// place in the request (`/aasa…`, `/assetlinks…`, `/teamMap`); nothing here touches the database.
package struct ImportFiles: Sendable {
    /// One app as the files name it, ready to register or reuse.
    package struct App: Sendable {
        package var appID: String
        package var platform: AppPlatform
        package var services: [AppService]
        /// An Android app's keys (nil for iOS).
        package var fingerprints: [String]?
        package var rules: [JSONValue]
        package var manifestDecides: Bool
        /// Where the file names the app (a pointer in the request body).
        package var field: String
        package var team: String = ""
    }

    /// Apple fetches at most 128 KB; a larger file is not a file Apple has ever read.
    package static let maxAASABytes = 128 * 1024

    package var aasa: (document: AASADocument, reading: ImportReading)?
    package var android: (document: AssetLinksDocument, reading: AssetLinksReading)?
    package var diagnostics: [Finding] = []
    /// iOS apps in the AASA's order, then Android apps in statement order.
    package var apps: [App] = []

    package init(aasa aasaBytes: [UInt8]?, android androidBytes: [UInt8]?, host: String, map: ImportTeamMap) throws {
        guard aasaBytes != nil || androidBytes != nil else {
            throw ServiceError.invalid(
                field: "/aasa", rule: "required", "give the AASA, the assetlinks.json, or a source to fetch them")
        }
        if let aasaBytes {
            let (document, warnings) = try Self.readAASA(aasaBytes, host: host)
            let reading = ImportReading(document)
            aasa = (document, reading)
            diagnostics += warnings
            apps += reading.apps.map { app in
                App(
                    appID: app.appID, platform: .ios, services: app.services, fingerprints: nil, rules: app.rules,
                    manifestDecides: false, field: "/aasa" + Self.pointer(of: app.appID, in: document))
            }
        }
        if let androidBytes {
            let (document, warnings) = try Self.readAndroid(androidBytes)
            let reading = AssetLinksReading(document)
            guard reading.refusals.isEmpty else {
                throw ServiceError.invalid(
                    reading.refusals.map {
                        FieldError(field: "/assetlinks" + $0.pointer, rule: $0.rule, message: $0.message)
                    })
            }
            android = (document, reading)
            diagnostics += warnings
            apps += try reading.apps.map(Self.androidApp)
        }
        try assignTeams(map)
    }

    /// The AASA as Apple would read it, refused (422 naming where in it) when Apple would not, or
    /// when it is larger than Apple reads.
    package static func readAASA(_ bytes: [UInt8], host: String) throws -> (AASADocument, [Finding]) {
        guard bytes.count <= maxAASABytes else {
            throw ServiceError.invalid(
                field: "/aasa", rule: "size",
                "the file is \(bytes.count) bytes; Apple reads at most \(maxAASABytes), so no device has ever read it")
        }
        let parsed = AASAParser.parse(bytes)
        var diagnostics = parsed.diagnostics
        if let document = parsed.document {
            diagnostics += AASAValidator.validate(
                document, servedByteCount: bytes.count, options: .init(analyzeRules: false, host: host))
        }
        let errors = diagnostics.filter { $0.severity == .error }
        guard let document = parsed.document, errors.isEmpty else {
            let fields = errors.map {
                FieldError(field: "/aasa" + $0.path.description, rule: $0.code.rawValue, message: $0.message)
            }
            throw ServiceError.invalid(
                fields.isEmpty
                    ? [FieldError(field: "/aasa", rule: "json", message: "the file is not an AASA document")] : fields)
        }
        let warnings = diagnostics.filter { $0.severity == .warning }.map {
            Finding(code: $0.code.rawValue, path: "/aasa" + $0.path.description, message: $0.message)
        }
        return (document, warnings)
    }

    /// The assetlinks.json as Google's validator reads it: every error (`L…`, a malformed
    /// fingerprint among them) refuses the import, naming its place.
    package static func readAndroid(_ bytes: [UInt8]) throws -> (AssetLinksDocument, [Finding]) {
        let (document, parseDiagnostics) = AssetLinksDocument.parse(bytes)
        let diagnostics = parseDiagnostics + AssetLinksValidator.validate(bytes)
        let errors = diagnostics.filter { $0.severity == .error }
        guard let document, errors.isEmpty else {
            let fields = errors.map {
                FieldError(field: "/assetlinks" + $0.path.description, rule: $0.code.rawValue, message: $0.message)
            }.uniqued()
            throw ServiceError.invalid(
                fields.isEmpty
                    ? [FieldError(field: "/assetlinks", rule: "json", message: "the file is not a statement list")]
                    : fields)
        }
        let warnings = diagnostics.filter { $0.severity == .warning }.map {
            Finding(code: $0.code.rawValue, path: "/assetlinks" + $0.path.description, message: $0.message)
        }
        return (document, warnings)
    }

    /// An Android app of the file, checked as the apps API checks one (package name, keys,
    /// services), each problem named at its place in the file.
    package static func androidApp(_ app: AssetLinksReading.App) throws -> App {
        let base = "/assetlinks\(app.pointer)/target"
        do {
            _ = try AppInput.check(
                appID: app.packageName, platform: .android,
                services: app.services.map(\.rawValue),
                fingerprints: app.fingerprints, rulesFrom: nil, pointer: "")
        } catch let problem as ServiceError {
            throw ServiceError.invalid(
                problem.errors.map { error in
                    var error = error
                    error.field = error.field.replacingOccurrences(of: "/appID", with: base + "/package_name")
                        .replacingOccurrences(of: "/fingerprints", with: base + "/sha256_cert_fingerprints")
                        .replacingOccurrences(of: "/services", with: "/assetlinks\(app.pointer)/relation")
                    return error
                })
        }
        return App(
            appID: app.packageName, platform: .android, services: app.services, fingerprints: app.fingerprints,
            rules: app.rules, manifestDecides: app.manifestDecides, field: base + "/package_name")
    }

    /// Each app's team by the map, refused (422 naming the app's place in the file) for an app no
    /// key claims.
    package mutating func assignTeams(_ map: ImportTeamMap) throws {
        guard !map.entries.isEmpty else {
            throw ServiceError.invalid(
                field: "/teamMap", rule: "required",
                "name a team for each Apple Team ID, app ID or package name in the files")
        }
        var errors: [FieldError] = []
        for i in apps.indices {
            let team = apps[i].platform == .ios ? map.team(for: apps[i].appID) : map.team(forPackage: apps[i].appID)
            if let team {
                apps[i].team = team
            } else {
                let key = apps[i].platform == .ios ? "its Team ID or the app ID" : "the package name"
                errors.append(
                    FieldError(
                        field: apps[i].field, rule: "team-map",
                        message: "no team in the map claims \(apps[i].appID); add \(key) to the map"))
            }
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }
    }

    /// Where an app ID first stands in the AASA, as a JSON pointer.
    package static func pointer(of appID: String, in document: AASADocument) -> String {
        for (i, entry) in (document.applinks?.details ?? []).enumerated() {
            if let j = entry.appIDs?.firstIndex(of: appID) { return "/applinks/details/\(i)/appIDs/\(j)" }
            if entry.appID == appID { return "/applinks/details/\(i)/appID" }
        }
        let lists: [(String, [String]?)] = [
            ("webcredentials", document.webcredentials?.apps), ("appclips", document.appclips?.apps),
            ("activitycontinuation", document.activitycontinuation?.apps),
        ]
        for (name, apps) in lists {
            if let j = apps?.firstIndex(of: appID) { return "/\(name)/apps/\(j)" }
        }
        return ""
    }
}
