/// A finding about an assetlinks.json file, with a stable code (`L…`, beside Apple's `E…`/`W…`).
public struct AssetLinksDiagnostic: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable { case error, warning }

    public enum Code: String, Sendable, Hashable, CaseIterable {
        case invalidJSON = "L001"
        case notAnArray = "L002"
        case statementNotObject = "L003"
        case relationMissing = "L010"
        case unknownRelation = "L011"
        case targetMissing = "L020"
        case unknownNamespace = "L021"
        case webTarget = "L022"
        case packageName = "L030"
        case fingerprintsMissing = "L040"
        case fingerprintLowerCase = "L041"
        case fingerprintNoColons = "L042"
        case fingerprintSHA1 = "L043"
        case fingerprintMalformed = "L044"
        /// The same key twice in one target, however it is spelled (case, colons).
        case fingerprintTwice = "L045"
        case duplicateStatement = "L050"
        case duplicateDynamicRules = "L051"
        case relationExtensions = "L060"
        case componentSyntax = "L061"
        case unverifiedReading = "L062"
        /// A `.` in a pattern with wildcards: on a device it matches any character (issue 26).
        case dotMatchesAnyCharacter = "L063"
        /// `*` followed by `?` or `*`: the run waits for a literal `.` (issue 26).
        case starBeforeWildcard = "L064"
        /// A `#` rule: a URL without a fragment never matches it (issue 26).
        case fragmentRule = "L065"
        case tooLarge = "L070"
    }

    public var severity: Severity
    public var code: Code
    public var path: JSONPointer
    public var message: String

    public static func error(_ code: Code, at path: JSONPointer, _ message: String) -> AssetLinksDiagnostic {
        AssetLinksDiagnostic(severity: .error, code: code, path: path, message: message)
    }

    public static func warning(_ code: Code, at path: JSONPointer, _ message: String) -> AssetLinksDiagnostic {
        AssetLinksDiagnostic(severity: .warning, code: code, path: path, message: message)
    }

    public var description: String { "\(severity.rawValue) \(code.rawValue) \(path): \(message)" }
}
