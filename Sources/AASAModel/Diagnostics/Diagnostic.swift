/// One finding about a document: a stable code that scripts can test for, the JSON pointer of the
/// value it is about, and a sentence a person can act on.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Comparable {
        case error, warning

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs == .error && rhs == .warning }
    }

    public var severity: Severity
    public var code: DiagnosticCode
    public var path: JSONPointer
    public var message: String

    public init(_ severity: Severity, _ code: DiagnosticCode, at path: JSONPointer, _ message: String) {
        self.severity = severity
        self.code = code
        self.path = path
        self.message = message
    }

    public static func error(_ code: DiagnosticCode, at path: JSONPointer, _ message: String) -> Diagnostic {
        Diagnostic(.error, code, at: path, message)
    }

    public static func warning(_ code: DiagnosticCode, at path: JSONPointer, _ message: String) -> Diagnostic {
        Diagnostic(.warning, code, at: path, message)
    }

    public var description: String {
        let location = path.description.isEmpty ? "/" : path.description
        return "\(severity.rawValue) \(code.rawValue) at \(location): \(message)"
    }
}

/// Stable identifiers of every finding. Never renumber or reuse one: pipelines match on them.
/// `E…` codes are errors (the document is refused), `W…` warnings.
public enum DiagnosticCode: String, Sendable, Hashable, CaseIterable {
    // Reading the file
    case invalidJSON = "E001"
    case signedCMS = "E002"
    case rootNotObject = "E003"
    case notUTF8 = "E004"
    case tooDeep = "E005"
    // Structure and types
    case wrongType = "E010"
    case missingAppID = "E011"
    case invalidAppID = "E012"
    case queryValueNotString = "E013"
    case noService = "E014"
    // Patterns and variables
    case undefinedVariable = "E020"
    case malformedVariable = "E021"
    case variableRedefinesPredefined = "E022"
    case variableValueReferencesVariable = "E023"
    case variableWithoutValues = "E024"
    case invalidVariableName = "E025"
    // Size
    case fileTooLarge = "E030"

    // Warnings: forms Apple still reads but that should change
    case byteOrderMark = "W001"
    case duplicateKey = "W002"
    case detailsAsDictionary = "W010"
    case notInsideComponents = "W011"
    case appInSeveralEntries = "W012"
    case appIDDisagreesWithAppIDs = "W013"
    case pathsDisagreeWithComponents = "W014"
    case entryWithoutRules = "W015"
    case emptyDetails = "W016"
    case legacyAppsNotEmpty = "W017"
    case duplicateAppID = "W018"
    case unknownKey = "W020"
    case nearMissKey = "W021"
    case percentEncodedFalse = "W030"
    case caseInsensitiveQueryOrFragment = "W031"
    case variableUsedTwice = "W032"
    case pathPatternLooksLikeQuery = "W033"
    case pathPatternHasFragment = "W034"
    case pathPatternIsURL = "W035"
    case redundantStars = "W036"
    case patternWhitespace = "W037"
    case lowercaseTeamID = "W038"
    case variableInLegacyPath = "W039"
    case shadowedRule = "W040"
    case overlappingRule = "W041"
    case catchAllRule = "W042"
    case analysisIncomplete = "W043"

    public var severity: Diagnostic.Severity { rawValue.hasPrefix("E") ? .error : .warning }
}
