/// Checks an assetlinks.json file against Google's rules (docs/assetlinks-spec.md), each finding with
/// a stable code and, where one exists, its fix.
public enum AssetLinksValidator {
    /// Google documents no size limit; this service warns above Apple's 128 KB and refuses 1 MB
    /// (a chosen reading, see the spec).
    public static let sizeWarning = 128 * 1024
    public static let sizeLimit = 1024 * 1024

    public static func validate(_ bytes: [UInt8]) -> [AssetLinksDiagnostic] {
        let out = size(bytes.count)
        let parsed = AssetLinksDocument.parse(bytes)
        guard let document = parsed.document else { return out + parsed.diagnostics }
        return out + validate(document.root)
    }

    /// The size rule alone: for a document already in hand with its rendered byte count.
    public static func size(_ byteCount: Int) -> [AssetLinksDiagnostic] {
        if byteCount > sizeLimit {
            return [
                .error(
                    .tooLarge, at: .root, "the file is \(byteCount) bytes; this service refuses more than \(sizeLimit)")
            ]
        }
        if byteCount > sizeWarning {
            return [
                .warning(
                    .tooLarge, at: .root,
                    "the file is \(byteCount) bytes; Google documents no limit, but fetchers give up on large files")
            ]
        }
        return []
    }

    public static func validate(_ root: JSONValue) -> [AssetLinksDiagnostic] {
        guard let items = root.arrayValue else {
            return [.error(.notAnArray, at: .root, "a statement list is a JSON array of statements")]
        }
        var out: [AssetLinksDiagnostic] = []
        var seen: [JSONValue: Int] = [:]
        var dynamicFor: [String: Int] = [:]
        for (i, item) in items.enumerated() {
            let at = JSONPointer.root / i
            guard let o = item.objectValue else {
                out.append(.error(.statementNotObject, at: at, "a statement is an object with relation and target"))
                continue
            }
            if o["include"] != nil && o["target"] == nil { continue }  // an include statement points elsewhere
            // Relations.
            let relations = o["relation"]?.arrayValue
            if relations == nil || relations!.isEmpty || relations!.contains(where: { $0.stringValue == nil }) {
                out.append(
                    .error(.relationMissing, at: at / "relation", "relation is a non-empty array of relation strings"))
            }
            for (k, r) in (relations ?? []).enumerated() {
                if let s = r.stringValue, !AssetLinksDocument.knownRelations.contains(s) {
                    out.append(
                        .warning(
                            .unknownRelation, at: at / "relation" / k,
                            """
                            \(s) is not a relation Google defines (handle_all_urls, get_login_creds, \
                            use_as_origin): it grants nothing
                            """
                        ))
                }
            }
            // Target.
            guard let target = o["target"]?.objectValue else {
                out.append(.error(.targetMissing, at: at / "target", "a statement names its target"))
                continue
            }
            switch target["namespace"]?.stringValue {
            case "android_app"?:
                out += androidTarget(target, at: at / "target")
            case "web"?:
                let site = target["site"]?.stringValue ?? ""
                let ok = (site.hasPrefix("https://") || site.hasPrefix("http://")) && !site.dropFirst(8).contains("/")
                out.append(
                    .warning(
                        .webTarget, at: at / "target",
                        "a web target (\(site)) links sites, not apps; this service writes none"
                            + (ok ? "" : "; and site must be http[s]://host[:port] without a path")))
            case let other:
                out.append(
                    .error(
                        .unknownNamespace, at: at / "target" / "namespace",
                        "namespace is android_app or web, not \(other.map { "`\($0)`" } ?? "absent")"))
            }
            // Duplicates.
            let key: JSONValue = .object([
                "relation": .array((relations ?? []).sorted { ($0.stringValue ?? "") < ($1.stringValue ?? "") }),
                "target": .object(target),
            ])
            if let first = seen[key] {
                out.append(.warning(.duplicateStatement, at: at, "the same statement as /\(first)"))
            } else {
                seen[key] = i
            }
            // Relation extensions and dynamic rules.
            if let extensions = o["relation_extensions"] {
                guard let ext = extensions.objectValue, ext.allSatisfy({ $0.value.objectValue != nil }) else {
                    out.append(
                        .error(
                            .relationExtensions, at: at / "relation_extensions",
                            "relation_extensions is an object of relation → object"))
                    continue
                }
                if let handle = ext[AssetLinksDocument.handleAllURLs]?.objectValue,
                    let components = handle["dynamic_app_link_components"]
                {
                    let path =
                        at / "relation_extensions" / AssetLinksDocument.handleAllURLs / "dynamic_app_link_components"
                    out += dynamicComponents(components, at: path)
                    if target["namespace"]?.stringValue == "android_app",
                        let package = target["package_name"]?.stringValue
                    {
                        if let first = dynamicFor[package] {
                            out.append(
                                .warning(
                                    .duplicateDynamicRules, at: path,
                                    """
                                    statement /\(first) already declares dynamic rules for \(package); Android \
                                    does not say which it uses
                                    """
                                ))
                        } else {
                            dynamicFor[package] = i
                        }
                    }
                }
            }
        }
        return out
    }

    /// A Java package name: two or more dot-separated segments, each a letter then letters, digits
    /// or underscores (Android's rule for an application ID).
    public static func packageNameProblem(_ name: String) -> String? {
        let segments = name.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count >= 2 else { return "a package name has at least two segments (com.example.app)" }
        for segment in segments {
            guard let first = segment.unicodeScalars.first, first.isASCIILetter else {
                return "each segment of a package name starts with a letter (`\(segment)` does not)"
            }
            guard segment.unicodeScalars.allSatisfy({ $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "_" })
            else {
                return "a package name has only letters, digits and underscores between its dots (`\(segment)`)"
            }
        }
        return nil
    }

    /// What is wrong with a fingerprint, with its fix; nil for 32 colon-separated upper-case hex bytes.
    public static func fingerprintProblem(_ f: String) -> (code: AssetLinksDiagnostic.Code, message: String)? {
        let hex = Set("0123456789ABCDEFabcdef")
        let bytes = f.split(separator: ":", omittingEmptySubsequences: false)
        let isHexPairs = bytes.allSatisfy { $0.count == 2 && $0.allSatisfy(hex.contains) }
        if isHexPairs && bytes.count == 32 {
            if f != f.uppercased() {
                return (.fingerprintLowerCase, "hex digits are upper case: use \(f.uppercased())")
            }
            return nil
        }
        if isHexPairs && bytes.count == 20 {
            return (
                .fingerprintSHA1,
                """
                this is a SHA-1 fingerprint (20 bytes); give the SHA-256 one (keytool -list -v, or Play Console → \
                App signing)
                """
            )
        }
        if f.count == 64 && f.allSatisfy(hex.contains) {
            var pairs: [String] = []
            var rest = Substring(f.uppercased())
            while !rest.isEmpty {
                pairs.append(String(rest.prefix(2)))
                rest = rest.dropFirst(2)
            }
            return (.fingerprintNoColons, "bytes are separated by colons: use \(pairs.joined(separator: ":"))")
        }
        return (
            .fingerprintMalformed, "a fingerprint is 32 colon-separated upper-case hex bytes (AB:CD:…); `\(f)` is not"
        )
    }

    static func androidTarget(_ target: JSONObject, at: JSONPointer) -> [AssetLinksDiagnostic] {
        var out: [AssetLinksDiagnostic] = []
        let name = target["package_name"]?.stringValue ?? ""
        if let problem = packageNameProblem(name) {
            out.append(.error(.packageName, at: at / "package_name", "\(problem): `\(name)`"))
        }
        guard let fingerprints = target["sha256_cert_fingerprints"]?.arrayValue, !fingerprints.isEmpty else {
            out.append(
                .error(
                    .fingerprintsMissing, at: at / "sha256_cert_fingerprints",
                    "an app target lists its signing certificates' SHA-256 fingerprints"))
            return out
        }
        for (k, f) in fingerprints.enumerated() {
            guard let s = f.stringValue else {
                out.append(
                    .error(.fingerprintMalformed, at: at / "sha256_cert_fingerprints" / k, "a fingerprint is a string"))
                continue
            }
            if let (code, message) = fingerprintProblem(s) {
                out.append(.error(code, at: at / "sha256_cert_fingerprints" / k, message))
            }
            let key = fingerprintKey(s)
            if let first = fingerprints[..<k].firstIndex(where: { $0.stringValue.map(fingerprintKey) == key }) {
                let spelled = fingerprints[first].stringValue == s ? "" : ", spelled differently"
                out.append(
                    .warning(
                        .fingerprintTwice, at: at / "sha256_cert_fingerprints" / k,
                        "the same key as sha256_cert_fingerprints/\(first)\(spelled); list each key once"))
            }
        }
        return out
    }

    /// A fingerprint's bytes, whatever their case and separators: two spellings of one key agree.
    public static func fingerprintKey(_ f: String) -> String {
        String(f.uppercased().unicodeScalars.filter { $0 != ":" && $0 != " " && $0 != "-" })
    }

    /// Dynamic App Links rules: Android discards every dynamic rule of the statement when one field
    /// is malformed or empty, so each is an error.
    static func dynamicComponents(_ value: JSONValue, at path: JSONPointer) -> [AssetLinksDiagnostic] {
        guard let components = value.arrayValue else {
            return [.error(.componentSyntax, at: path, "dynamic_app_link_components is an array of rules")]
        }
        var out: [AssetLinksDiagnostic] = []
        for (i, c) in components.enumerated() {
            let at = path / i
            guard let o = c.objectValue else {
                out.append(.error(.componentSyntax, at: at, "a rule is an object"))
                continue
            }
            if o.isEmpty {
                out.append(
                    .warning(
                        .componentSyntax, at: at,
                        "an empty rule has no filter, and a filter group without one matches no URL on a device "
                            + "(UriRelativeFilterGroup); write `\"/\": \"*\"` for every URL"))
            }
            for member in o {
                switch member.key {
                case "/", "#":
                    guard let s = member.value.stringValue, !s.isEmpty else {
                        out.append(
                            .error(
                                .componentSyntax, at: at / member.key, "`\(member.key)` is a non-empty pattern string"))
                        continue
                    }
                    out += readings(s, at: at / member.key)
                    if member.key == "#" {
                        out.append(
                            .warning(
                                .fragmentRule, at: at / "#",
                                "a URL without `#` has no fragment (Uri.getFragment() is null), which no pattern "
                                    + "matches, not even `*`: this rule never opens such a URL"))
                    }
                case "?":
                    guard let q = member.value.objectValue, !q.isEmpty,
                        q.allSatisfy({ $0.value.stringValue?.isEmpty == false })
                    else {
                        out.append(
                            .error(
                                .componentSyntax, at: at / "?",
                                "`?` is an object of query parameter → non-empty pattern string"))
                        continue
                    }
                    // Each entry is matched as the expression `name=value` (the one reading left:
                    // docs/assetlinks-spec.md).
                    for item in q { out += readings(item.key + "=" + item.value.stringValue!, at: at / "?" / item.key) }
                    out.append(
                        .warning(
                            .unverifiedReading, at: at / "?",
                            "how a device turns a `?` entry into a filter is not in AOSP's public source; this "
                                + "service matches `name=value` against each `&`-separated, decoded piece of the query"
                        ))
                case "exclude":
                    if member.value.boolValue == nil {
                        out.append(.error(.componentSyntax, at: at / "exclude", "exclude is true or false"))
                    }
                case "comments", "comment":
                    if member.value.stringValue == nil {
                        out.append(.error(.componentSyntax, at: at / member.key, "\(member.key) is a string"))
                    }
                default:
                    out.append(
                        .error(
                            .componentSyntax, at: at / member.key,
                            "a rule has `/`, `?`, `#`, `exclude` and `comments`; not `\(member.key)`"))
                }
            }
        }
        return out
    }

    /// Patterns whose device behaviour surprises (docs/assetlinks-spec.md, "Matching").
    static func readings(_ pattern: String, at: JSONPointer) -> [AssetLinksDiagnostic] {
        var out: [AssetLinksDiagnostic] = []
        let scalars = Array(pattern.unicodeScalars)
        let isGlob = AndroidPattern(pattern)?.kind == .simpleGlob
        for (i, c) in scalars.enumerated()
        where c == "*" && i + 1 < scalars.count && scalars[i + 1] != "*" && scalars[i + 1] != "?" {
            let next = scalars[i + 1]
            out.append(
                .warning(
                    .unverifiedReading, at: at,
                    "`*` stops at the first `\(next)` that follows (PatternMatcher, no backtracking); "
                        + "a URL with an earlier `\(next)` than you mean will not match"))
            break
        }
        if isGlob && pattern.contains(".") {
            out.append(
                .warning(
                    .dotMatchesAnyCharacter, at: at,
                    "with wildcards the pattern is a PatternMatcher glob, where `.` (written `\\.`) still matches "
                        + "any character except right after a `*`: `/a.b*c` matches `/aXbZc` on a device"))
        }
        if pattern.contains("*?") || pattern.contains("**") {
            out.append(
                .warning(
                    .starBeforeWildcard, at: at,
                    "a `*` followed by `?` or `*` becomes `.*.`, whose run waits for a literal `.`: "
                        + "`/foo*?bar` does not match `/foobarbar` on a device; write `?*` for one or more"))
        }
        if pattern.contains("%") {
            out.append(
                .warning(
                    .unverifiedReading, at: at,
                    "Android decodes the URL before matching (Uri.getPath(), getQuery(), getFragment()), so `%` "
                        + "in a pattern is a literal percent sign"))
        }
        return out
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
