/// Apple's rules, checked on a document: app IDs, patterns and variables, types that the reader
/// could not catch, forms that are obsolete or rest on unverified readings, the size limit, and
/// (optionally) shadowed and overlapping rules.
public enum AASAValidator {
    /// Apple's limit on the uncompressed file: 128 KB.
    public static let maxFileSize = 128 * 1024

    public struct Options: Sendable {
        /// Run the rule analysis (shadowing, overlaps, paths vs components). Costs more than the rest.
        public var analyzeRules: Bool
        public var host: String
        /// Asked now and then during the rule analysis; true cuts it short (reported as incomplete).
        public var shouldStop: (@Sendable () -> Bool)?

        public init(analyzeRules: Bool = true, host: String = "example.com", shouldStop: (@Sendable () -> Bool)? = nil)
        {
            self.analyzeRules = analyzeRules
            self.host = host
            self.shouldStop = shouldStop
        }
    }

    /// Findings about `document`. `servedByteCount` is the size of the file as it will be served
    /// (the input file, or the rendered bytes); without it the canonical compact rendering is measured.
    public static func validate(_ document: AASADocument, servedByteCount: Int? = nil, options: Options = Options())
        -> [Diagnostic]
    {
        validateWithAnalysis(document, servedByteCount: servedByteCount, options: options).diagnostics
    }

    /// `validate`, also handing back the rule analysis it ran (nil when it ran none), for callers
    /// that report shadowed and overlapping rules in detail without analysing twice.
    /// `matcher`, when given, is the document's, compiled once by a caller that keeps it.
    public static func validateWithAnalysis(
        _ document: AASADocument, servedByteCount: Int? = nil, matcher: AASAMatcher? = nil,
        options: Options = Options()
    ) -> (diagnostics: [Diagnostic], analysis: RuleAnalysis?) {
        var v = Checks(document: document)
        v.run()
        let size = servedByteCount ?? AASARenderer.render(document).count
        if size > maxFileSize {
            v.out.append(
                .error(
                    .fileTooLarge, at: .root,
                    "the file is \(size) bytes; Apple reads at most \(maxFileSize) bytes (128 KB) uncompressed"))
        }
        var analysis: RuleAnalysis?
        if options.analyzeRules, document.applinks?.details?.isEmpty == false {
            let matcher = matcher ?? AASAMatcher(document)
            let found = RuleAnalyzer.analyze(
                document, matcher: matcher, host: options.host, shouldStop: options.shouldStop)
            v.out += found.diagnostics
            v.out += pathsAgainstComponents(document, host: options.host)
            analysis = found
        }
        return (v.out, analysis)
    }

    /// Where an entry has both `paths` (old systems) and `components` (new ones), a URL on which the
    /// two disagree for an app of that entry.
    static func pathsAgainstComponents(_ document: AASADocument, host: String) -> [Diagnostic] {
        guard let details = document.applinks?.details else { return [] }
        var out: [Diagnostic] = []
        for (i, entry) in details.enumerated()
        where entry.components != nil && entry.paths != nil && entry.malformed == nil {
            var componentsOnly = entry
            componentsOnly.paths = nil
            var pathsOnly = entry
            pathsOnly.components = nil
            var a = document
            var b = document
            a.applinks?.details = [componentsOnly]
            b.applinks?.details = [pathsOnly]
            let ma = AASAMatcher(a)
            let mb = AASAMatcher(b)
            guard let app = ma.appIDs.first else { continue }
            for url in ExampleURLs.derive(from: [a, b], host: host, limit: 400) {
                let da = ma.decide(appID: app, url: url).decision
                let db = mb.decide(appID: app, url: url).decision
                if da != db {
                    out.append(
                        .warning(
                            .pathsDisagreeWithComponents, at: JSONPointer.root / "applinks" / "details" / i,
                            """
                            \"paths\" (read by iOS 12 and older) and \"components\" (iOS 13+) disagree: for \
                            \(url) components say \(da.rawValue), paths say \(db.rawValue)
                            """
                        ))
                    break
                }
            }
        }
        return out
    }
}

private struct Checks {
    let document: AASADocument
    let variables: VariableTable
    let customNames: Set<String>
    var out: [Diagnostic] = []

    init(document: AASADocument) {
        self.document = document
        self.variables = VariableTable(document.applinks?.substitutionVariables)
        self.customNames = Set((document.applinks?.substitutionVariables ?? []).map(\.name))
    }

    mutating func run() {
        if document.applinks == nil && document.webcredentials == nil && document.appclips == nil
            && document.activitycontinuation == nil
        {
            out.append(
                .error(
                    .noService, at: .root,
                    """
                    the file names no service: add \"applinks\" (Universal Links), \"webcredentials\", \
                    \"appclips\" or \"activitycontinuation\"
                    """
                ))
        }
        for (name, service) in [
            ("webcredentials", document.webcredentials), ("appclips", document.appclips),
            ("activitycontinuation", document.activitycontinuation),
        ] {
            guard let service else { continue }
            let path = JSONPointer.root / name / "apps"
            guard let apps = service.apps else {
                out.append(
                    .error(
                        .missingAppID, at: JSONPointer.root / name,
                        "\(name) has no \"apps\" array, so it speaks for no app"))
                continue
            }
            checkAppIDs(apps, at: path)
        }
        if let links = document.applinks { checkAppLinks(links) }
    }

    mutating func checkAppLinks(_ links: AppLinks) {
        let base = JSONPointer.root / "applinks"
        if let apps = links.apps, !apps.isEmpty {
            out.append(
                .warning(
                    .legacyAppsNotEmpty, at: base / "apps",
                    """
                    \"apps\" must be an empty array (iOS 12 and older require it, and newer systems ignore it); \
                    app IDs belong in details
                    """
                ))
        }
        for variable in links.substitutionVariables ?? [] {
            checkVariable(variable, at: base / "substitutionVariables" / variable.name)
        }
        if let defaults = links.defaults { checkComponent(defaults, at: base / "defaults") }
        guard let details = links.details, !details.isEmpty else {
            out.append(
                .warning(
                    .emptyDetails, at: base / "details",
                    "applinks has no details entries, so it opens no app"))
            return
        }
        var firstEntryOfApp: [String: Int] = [:]
        let detailsPath = base / "details"
        for (i, entry) in details.enumerated() where entry.malformed == nil {
            let path: JSONPointer =
                links.detailsForm == .dictionary ? detailsPath / (entry.appID ?? "") : detailsPath / i
            checkEntry(entry, at: path, dictionaryForm: links.detailsForm == .dictionary)
            for app in Set(entry.effectiveAppIDs) {
                if let first = firstEntryOfApp[app] {
                    out.append(
                        .warning(
                            .appInSeveralEntries, at: path,
                            """
                            \(app) is also listed in details entry \(first): its rules are read across both \
                            entries in order, a reading no recorded swcutil run confirms; keep one entry per app
                            """
                        ))
                } else {
                    firstEntryOfApp[app] = i
                }
            }
        }
    }

    mutating func checkEntry(_ entry: DetailsEntry, at path: JSONPointer, dictionaryForm: Bool) {
        if !dictionaryForm {
            if entry.appIDs == nil && entry.appID == nil {
                out.append(
                    .error(
                        .missingAppID, at: path,
                        "this entry names no app: add \"appIDs\": [\"ABCDE12345.com.example.app\"]"))
            } else if entry.appIDs?.isEmpty == true && entry.appID == nil {
                out.append(
                    .error(.missingAppID, at: path / "appIDs", "\"appIDs\" is empty, so this entry speaks for no app"))
            }
        }
        if let ids = entry.appIDs { checkAppIDs(ids, at: path / "appIDs") }
        if let id = entry.appID, !dictionaryForm { checkAppIDs([id], at: path / "appID", single: true) }
        if dictionaryForm, let id = entry.appID { checkAppIDs([id], at: path, single: true) }
        if let id = entry.appID, let ids = entry.appIDs, !ids.contains(id) {
            let newer = ids.isEmpty ? "no app (appIDs is empty)" : ids.joined(separator: ", ")
            out.append(
                .warning(
                    .appIDDisagreesWithAppIDs, at: path / "appID",
                    """
                    \"appID\" \(id) is not one of \"appIDs\": iOS 13+ reads only appIDs (\(newer)), iOS 12 and \
                    older only appID
                    """
                ))
        }
        let hasComponents = !(entry.components?.isEmpty ?? true)
        let hasPaths = !(entry.paths?.isEmpty ?? true)
        if !hasComponents && !hasPaths {
            out.append(
                .warning(
                    .entryWithoutRules, at: path,
                    "this entry has no rules (no \"components\" and no \"paths\"), so its apps open no URL"))
        }
        for (i, component) in (entry.components ?? []).enumerated() where component.malformed == nil {
            checkComponent(component, at: path / "components" / i)
        }
        if let defaults = entry.defaults { checkComponent(defaults, at: path / "defaults") }
        for (i, pattern) in (entry.paths ?? []).enumerated() {
            checkLegacyPath(pattern, at: path / "paths" / i)
        }
    }

    mutating func checkAppIDs(_ ids: [String], at path: JSONPointer, single: Bool = false) {
        var seen = Set<String>()
        for (i, id) in ids.enumerated() {
            let at = single ? path : path / i
            if let problem = AppID.problem(id) {
                out.append(.error(.invalidAppID, at: at, problem))
            } else if AppID.hasLowercaseTeamID(id) {
                out.append(
                    .warning(
                        .lowercaseTeamID, at: at, "the Team ID in \(id) has lower-case letters; Team IDs are upper case"
                    ))
            }
            if !seen.insert(id).inserted {
                out.append(.warning(.duplicateAppID, at: at, "\(id) is listed twice"))
            }
        }
    }

    mutating func checkVariable(_ variable: SubstitutionVariable, at path: JSONPointer) {
        let name = variable.name
        if name.isEmpty || name.unicodeScalars.contains(where: { $0 == "$" || $0 == "(" || $0 == ")" }) {
            out.append(
                .error(
                    .invalidVariableName, at: path,
                    """
                    variable name \(JSONWriter.quoted(name)) is not usable: names must be non-empty and contain \
                    no \"$\", \"(\" or \")\"
                    """
                ))
        }
        if PredefinedVariable.named(name) != nil {
            out.append(
                .error(
                    .variableRedefinesPredefined, at: path,
                    """
                    $(\(name)) is one of Apple's predefined variables; a custom variable must not redefine it \
                    (choose another name)
                    """
                ))
        }
        if variable.values.isEmpty {
            out.append(
                .error(
                    .variableWithoutValues, at: path,
                    "$(\(name)) has no values, so every pattern that uses it matches nothing"))
        }
        for (i, value) in variable.values.enumerated() where value.contains("$(") {
            out.append(
                .error(
                    .variableValueReferencesVariable, at: path / i,
                    """
                    value \(JSONWriter.quoted(value)) contains \"$(\": a variable's values may use * and ? but no \
                    other variable
                    """
                ))
        }
    }

    mutating func checkComponent(_ c: ComponentRule, at path: JSONPointer) {
        if let p = c.path { checkPattern(p, at: path / "/", isPath: true) }
        if let f = c.fragment { checkPattern(f, at: path / "#", isPath: false) }
        switch c.query {
        case .whole(let q)?: checkPattern(q, at: path / "?", isPath: false)
        case .items(let items)?:
            for item in items {
                if let pattern = item.pattern {
                    checkPattern(pattern, at: path / "?" / item.name, isPath: false)
                } else {
                    out.append(
                        .error(
                            .queryValueNotString, at: path / "?" / item.name,
                            """
                            query item pattern must be a string, found \(item.value.typeName): Apple then ignores \
                            the whole \"?\" dictionary, so this rule matches any query (write \"*\" for any value)
                            """
                        ))
                }
            }
        case nil: break
        }
        for member in c.extra.members where member.key.hasPrefix("NOT ") {
            out.append(
                .warning(
                    .notInsideComponents, at: path / member.key,
                    """
                    \"NOT \" means nothing inside components: write {\"/\": \
                    \(JSONWriter.quoted(String(member.key.dropFirst(4)))), \"exclude\": true}
                    """
                ))
        }
        if c.percentEncoded == false {
            out.append(
                .warning(
                    .percentEncodedFalse, at: path / "percentEncoded",
                    """
                    percentEncoded false: the URL is decoded before matching, so %2F counts as \"/\" and a \
                    pattern such as /a%20b no longer matches (write /a b)
                    """
                ))
        }
        if c.caseSensitive == false && (c.query != nil || c.fragment != nil) {
            out.append(
                .warning(
                    .caseInsensitiveQueryOrFragment, at: path / "caseSensitive",
                    """
                    caseSensitive false on a rule with \"?\" or \"#\": Apple's folding of query values and \
                    fragments is not confirmed by any recorded swcutil run; query item names are compared exactly
                    """
                ))
        }
    }

    mutating func checkLegacyPath(_ pattern: String, at path: JSONPointer) {
        let body = pattern.hasPrefix("NOT ") ? String(pattern.dropFirst(4)) : pattern
        checkPatternShape(body, at: path)
        if body.contains("$(") {
            out.append(
                .warning(
                    .variableInLegacyPath, at: path,
                    """
                    legacy paths take no substitution variables: \"$(\" is matched as literal text here (use \
                    components)
                    """
                ))
        }
    }

    mutating func checkPattern(_ pattern: String, at path: JSONPointer, isPath: Bool) {
        let (tokens, issues) = PatternSyntax.tokenize(pattern)
        for issue in issues {
            out.append(.error(.malformedVariable, at: path, "pattern \(JSONWriter.quoted(pattern)): \(issue.message)"))
        }
        var counts: [String: Int] = [:]
        for case .variable(let name) in tokens {
            counts[name, default: 0] += 1
            if counts[name] == 1, case .undefined = variables.meaning(of: name) {
                out.append(
                    .error(
                        .undefinedVariable, at: path,
                        """
                        $(\(name)) is not defined: define it in applinks.substitutionVariables, or use a \
                        predefined one \
                        (\(PredefinedVariable.allCases.map { "$(\($0.rawValue))" }.joined(separator: ", ")))
                        """
                    ))
            }
        }
        for (name, count) in counts.sorted(by: { $0.key < $1.key }) where count > 1 {
            out.append(
                .warning(
                    .variableUsedTwice, at: path,
                    """
                    $(\(name)) appears \(count) times in one pattern; each use is assumed to choose its value \
                    independently, which no recorded swcutil run confirms
                    """
                ))
        }
        if isPath {
            if pattern.hasPrefix("NOT ") {
                out.append(
                    .warning(
                        .notInsideComponents, at: path,
                        """
                        \"NOT \" means nothing inside components (it is matched as text): write the pattern \
                        without it and add \"exclude\": true
                        """
                    ))
            }
            checkPatternShape(pattern, at: path)
        }
    }

    mutating func checkPatternShape(_ pattern: String, at path: JSONPointer) {
        if pattern.contains("://") || pattern.hasPrefix("www.") {
            out.append(
                .warning(
                    .pathPatternIsURL, at: path,
                    "path patterns match the URL's path only, never the scheme or host: write \"/path\", not a full URL"
                ))
        }
        if let q = pattern.firstIndex(of: "?"), pattern[q...].contains("=") {
            out.append(
                .warning(
                    .pathPatternLooksLikeQuery, at: path,
                    """
                    \"?\" in a path pattern matches one character, not a query: match the query with the \"?\" \
                    key, e.g. {\"/\": \"/search\", \"?\": {\"q\": \"*\"}}
                    """
                ))
        }
        if pattern.contains("#") {
            out.append(
                .warning(
                    .pathPatternHasFragment, at: path,
                    "a URL path never contains a raw \"#\": match the fragment with the \"#\" key"))
        }
        if pattern.contains("**") {
            out.append(
                .warning(.redundantStars, at: path, "\"**\" is the same as \"*\" (a star already crosses \"/\")"))
        }
        if let first = pattern.unicodeScalars.first, let last = pattern.unicodeScalars.last,
            first.properties.isWhitespace || last.properties.isWhitespace
        {
            out.append(
                .warning(
                    .patternWhitespace, at: path,
                    "pattern \(JSONWriter.quoted(pattern)) starts or ends with white space, which is matched literally")
            )
        }
    }
}
