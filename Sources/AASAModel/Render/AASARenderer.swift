/// Canonical bytes for a document: the same document always renders to the same bytes (fixed key
/// order, UTF-8, `details` as an array, no trailing white space), so files can be compared,
/// hashed and versioned.
public enum AASARenderer {
    public struct Options: Sendable, Hashable {
        /// Also serve iOS 12 and older: `apps: []`, one entry per app with `appID`, and `paths`
        /// where the components can be expressed that way.
        public var legacy: Bool
        /// Indented by two spaces with a final newline; otherwise compact, no newline.
        public var pretty: Bool

        public init(legacy: Bool = false, pretty: Bool = false) {
            self.legacy = legacy
            self.pretty = pretty
        }
    }

    public static func render(_ document: AASADocument, options: Options = Options()) -> [UInt8] {
        let value = options.legacy ? legacyForm(document).document.canonicalJSONValue : document.canonicalJSONValue
        return JSONWriter(style: options.pretty ? .pretty : .compact).bytes(value)
    }

    /// What the legacy form could not express for old systems, one sentence each.
    public static func legacyLimitations(_ document: AASADocument) -> [String] {
        legacyForm(document).limitations
    }

    /// The document with the legacy keys added. New systems read it exactly as the original:
    /// splitting an entry per app keeps each app's rules and the order of first appearance.
    static func legacyForm(_ document: AASADocument) -> (document: AASADocument, limitations: [String]) {
        guard var links = document.applinks, let details = links.details else { return (document, []) }
        var limitations: [String] = []
        var entries: [DetailsEntry] = []
        for (i, entry) in details.enumerated() {
            guard entry.malformed == nil else {
                entries.append(entry)
                continue
            }
            var paths = entry.paths
            if let components = entry.components, paths == nil {
                var translated: [String] = []
                for (k, component) in components.enumerated() {
                    let effective = component.filled(from: entry.defaults).filled(from: links.defaults)
                    if let path = LegacyPaths.path(for: effective) {
                        translated.append(path)
                    } else {
                        limitations.append(
                            """
                            details[\(i)].components[\(k)] uses \(LegacyPaths.reason(for: effective)), which \
                            legacy paths cannot express: that entry gets no \"paths\", so iOS 12 and older open \
                            none of its URLs
                            """
                        )
                        translated = []
                        paths = nil
                        break
                    }
                    paths = translated
                }
            }
            let apps = entry.effectiveAppIDs
            if apps.isEmpty { entries.append(entry) }
            for app in apps {
                var copy = entry
                copy.appID = app
                copy.appIDs = [app]
                copy.paths = paths
                entries.append(copy)
            }
        }
        links.details = entries
        links.detailsForm = .array
        links.apps = []
        var out = document
        out.applinks = links
        return (out, limitations)
    }
}

/// Which components mean the same as a legacy `paths` string on old systems.
enum LegacyPaths {
    static func path(for rule: ComponentRule) -> String? {
        guard reasonNotExpressible(rule) == nil else { return nil }
        let pattern = rule.path ?? "*"
        return (rule.exclude == true ? "NOT " : "") + pattern
    }

    static func reason(for rule: ComponentRule) -> String { reasonNotExpressible(rule) ?? "nothing" }

    private static func reasonNotExpressible(_ rule: ComponentRule) -> String? {
        if rule.malformed != nil { return "a malformed component" }
        switch rule.query {
        case nil, .whole("*")?: break
        case .items(let items)? where items.allSatisfy({ $0.pattern == "*" }): break
        default: return "a query pattern"
        }
        if let f = rule.fragment, f != "*" { return "a fragment pattern" }
        if rule.caseSensitive == false, rule.path?.contains(where: \.isLetter) ?? false { return "caseSensitive false" }
        if rule.percentEncoded == false { return "percentEncoded false" }
        if rule.path?.contains("$(") ?? false { return "a substitution variable" }
        if rule.path?.hasPrefix("NOT ") ?? false { return "a path starting with \"NOT \"" }
        return nil
    }
}
