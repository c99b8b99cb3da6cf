/// Turns a parsed JSON value into an `AASADocument`, reporting every structural problem:
/// wrong types (error), unknown keys (warning; near-misses of known keys loudly), the obsolete
/// dictionary form of `details` (warning). Nothing is dropped: what the model cannot hold goes
/// into `extra` or `malformed`.
struct DocumentReader {
    var diagnostics: [Diagnostic] = []

    static let rootKeys = ["applinks", "webcredentials", "appclips", "activitycontinuation"]
    static let appLinksKeys = ["apps", "details", "defaults", "substitutionVariables"]
    static let entryKeys = ["appIDs", "appID", "components", "paths", "defaults"]
    static let componentKeys = ["/", "?", "#", "exclude", "caseSensitive", "percentEncoded", "comment"]
    static let serviceKeys = ["apps"]

    mutating func read(_ root: JSONValue) -> AASADocument? {
        guard case .object(let object) = root else {
            diagnostics.append(
                .error(
                    .rootNotObject, at: .root,
                    "the file must be a JSON object such as {\"applinks\": …}, not \(root.typeName)"))
            return nil
        }
        var document = AASADocument()
        for member in object.members {
            let path = JSONPointer.root / member.key
            switch member.key {
            case "applinks":
                if let links = readAppLinks(member.value, at: path) {
                    document.applinks = links
                } else {
                    document.extra.append(member.key, member.value)
                }
            case "webcredentials", "appclips", "activitycontinuation":
                guard let service = readService(member.value, at: path) else {
                    document.extra.append(member.key, member.value)
                    continue
                }
                switch member.key {
                case "webcredentials": document.webcredentials = service
                case "appclips": document.appclips = service
                default: document.activitycontinuation = service
                }
            default:
                reportUnknown(member.key, at: path, known: Self.rootKeys, context: "at the top level")
                document.extra.append(member.key, member.value)
            }
        }
        return document
    }

    // MARK: services

    mutating func readService(_ value: JSONValue, at path: JSONPointer) -> AppListService? {
        guard case .object(let object) = value else {
            wrongType(
                at: path, expected: "an object such as {\"apps\": [\"ABCDE12345.com.example.app\"]}", found: value)
            return nil
        }
        var service = AppListService(apps: nil)
        for member in object.members {
            let memberPath = path / member.key
            if member.key == "apps", let apps = readStrings(member.value, at: memberPath) {
                service.apps = apps
            } else {
                if member.key != "apps" {
                    reportUnknown(
                        member.key, at: memberPath, known: Self.serviceKeys, context: "in \(path.tokens.last ?? "")")
                }
                service.extra.append(member.key, member.value)
            }
        }
        return service
    }

    // MARK: applinks

    mutating func readAppLinks(_ value: JSONValue, at path: JSONPointer) -> AppLinks? {
        guard case .object(let object) = value else {
            wrongType(at: path, expected: "an object with \"details\"", found: value)
            return nil
        }
        var links = AppLinks(details: nil)
        for member in object.members {
            let memberPath = path / member.key
            switch member.key {
            case "apps":
                if let apps = readStrings(member.value, at: memberPath) {
                    links.apps = apps
                } else {
                    links.extra.append(member.key, member.value)
                }
            case "details":
                switch member.value {
                case .array(let elements):
                    links.details = elements.enumerated().map { readEntry($0.element, at: memberPath / $0.offset) }
                    links.detailsForm = .array
                case .object(let byAppID):
                    diagnostics.append(
                        .warning(
                            .detailsAsDictionary, at: memberPath,
                            """
                            \"details\" as a dictionary keyed by app ID is obsolete: Apple still reads it, but \
                            JSON objects have no order, so which app wins is undefined; write an array of \
                            {\"appIDs\": [...], \"components\": [...]} entries
                            """
                        ))
                    links.details = byAppID.members.map { member in
                        var entry = readEntry(member.value, at: memberPath / member.key)
                        if entry.malformed == nil { entry.appID = member.key }
                        return entry
                    }
                    links.detailsForm = .dictionary
                default:
                    wrongType(at: memberPath, expected: "an array of entries", found: member.value)
                    links.extra.append(member.key, member.value)
                }
            case "defaults":
                if case let rule = readComponent(member.value, at: memberPath, isDefaults: true), rule.malformed == nil
                {
                    links.defaults = rule
                } else {
                    links.extra.append(member.key, member.value)
                }
            case "substitutionVariables":
                if let variables = readVariables(member.value, at: memberPath) {
                    links.substitutionVariables = variables
                } else {
                    links.extra.append(member.key, member.value)
                }
            default:
                reportUnknown(member.key, at: memberPath, known: Self.appLinksKeys, context: "in applinks")
                links.extra.append(member.key, member.value)
            }
        }
        return links
    }

    mutating func readVariables(_ value: JSONValue, at path: JSONPointer) -> [SubstitutionVariable]? {
        guard case .object(let object) = value else {
            wrongType(at: path, expected: "an object mapping each variable name to an array of strings", found: value)
            return nil
        }
        var variables: [SubstitutionVariable] = []
        for member in object.members {
            let values = readStrings(member.value, at: path / member.key) ?? []
            variables.append(SubstitutionVariable(name: member.key, values: values))
        }
        return variables
    }

    mutating func readEntry(_ value: JSONValue, at path: JSONPointer) -> DetailsEntry {
        guard case .object(let object) = value else {
            wrongType(at: path, expected: "an object with \"appIDs\" and \"components\"", found: value)
            return DetailsEntry(malformed: value)
        }
        var entry = DetailsEntry()
        for member in object.members {
            let memberPath = path / member.key
            var kept = true
            switch member.key {
            case "appIDs":
                if let ids = readStrings(member.value, at: memberPath) { entry.appIDs = ids } else { kept = false }
            case "appID":
                if case .string(let id) = member.value {
                    entry.appID = id
                } else {
                    let hint = member.value.arrayValue != nil ? " (a list of apps belongs in \"appIDs\")" : ""
                    wrongType(at: memberPath, expected: "a string\(hint)", found: member.value)
                    kept = false
                }
            case "components":
                if case .array(let elements) = member.value {
                    entry.components = elements.enumerated().map {
                        readComponent($0.element, at: memberPath / $0.offset, isDefaults: false)
                    }
                } else {
                    wrongType(at: memberPath, expected: "an array of component dictionaries", found: member.value)
                    kept = false
                }
            case "paths":
                if let paths = readStrings(member.value, at: memberPath) { entry.paths = paths } else { kept = false }
            case "defaults":
                if case let rule = readComponent(member.value, at: memberPath, isDefaults: true), rule.malformed == nil
                {
                    entry.defaults = rule
                } else {
                    kept = false
                }
            default:
                reportUnknown(member.key, at: memberPath, known: Self.entryKeys, context: "in a details entry")
                kept = false
            }
            if !kept { entry.extra.append(member.key, member.value) }
        }
        return entry
    }

    /// Reads a components dictionary. Returns a `malformed` rule for a non-object element.
    mutating func readComponent(_ value: JSONValue, at path: JSONPointer, isDefaults: Bool) -> ComponentRule {
        guard case .object(let object) = value else {
            let what = isDefaults ? "a defaults dictionary" : "a component dictionary such as {\"/\": \"/path/*\"}"
            var message = "expected \(what), found \(value.typeName)"
            if case .string(let s) = value {
                message += " (\(JSONWriter.quoted(s)); write {\"/\": \(JSONWriter.quoted(s))})"
            }
            diagnostics.append(.error(.wrongType, at: path, message))
            return ComponentRule(malformed: value)
        }
        var rule = ComponentRule()
        for member in object.members {
            let memberPath = path / member.key
            var kept = true
            switch member.key {
            case "/": if let s = string(member.value, at: memberPath) { rule.path = s } else { kept = false }
            case "#": if let s = string(member.value, at: memberPath) { rule.fragment = s } else { kept = false }
            case "comment": if let s = string(member.value, at: memberPath) { rule.comment = s } else { kept = false }
            case "exclude": if let b = bool(member.value, at: memberPath) { rule.exclude = b } else { kept = false }
            case "caseSensitive":
                if let b = bool(member.value, at: memberPath) { rule.caseSensitive = b } else { kept = false }
            case "percentEncoded":
                if let b = bool(member.value, at: memberPath) { rule.percentEncoded = b } else { kept = false }
            case "?":
                switch member.value {
                case .string(let s): rule.query = .whole(s)
                case .object(let items):
                    rule.query = .items(items.members.map { QueryItemPattern(name: $0.key, value: $0.value) })
                default:
                    wrongType(
                        at: memberPath, expected: "a string or a dictionary of query item patterns", found: member.value
                    )
                    kept = false
                }
            default:
                if member.key.hasPrefix("NOT ") {
                    // Handled by the validator, which explains what NOT means and where.
                } else {
                    reportUnknown(
                        member.key, at: memberPath, known: Self.componentKeys,
                        context: isDefaults ? "in defaults" : "in a component")
                }
                kept = false
            }
            if !kept { rule.extra.append(member.key, member.value) }
        }
        return rule
    }

    // MARK: typed leaves

    mutating func readStrings(_ value: JSONValue, at path: JSONPointer) -> [String]? {
        guard case .array(let elements) = value else {
            wrongType(at: path, expected: "an array of strings", found: value)
            return nil
        }
        var strings: [String] = []
        for (i, element) in elements.enumerated() {
            if case .string(let s) = element {
                strings.append(s)
            } else {
                wrongType(at: path / i, expected: "a string", found: element)
            }
        }
        return strings
    }

    mutating func string(_ value: JSONValue, at path: JSONPointer) -> String? {
        if case .string(let s) = value { return s }
        wrongType(at: path, expected: "a string", found: value)
        return nil
    }

    mutating func bool(_ value: JSONValue, at path: JSONPointer) -> Bool? {
        if case .bool(let b) = value { return b }
        var hint = ""
        if case .string(let s) = value, s == "true" || s == "false" { hint = " (write \(s) without quotes)" }
        wrongType(at: path, expected: "true or false\(hint)", found: value)
        return nil
    }

    mutating func wrongType(at path: JSONPointer, expected: String, found: JSONValue) {
        diagnostics.append(.error(.wrongType, at: path, "expected \(expected), found \(found.typeName)"))
    }

    mutating func reportUnknown(_ key: String, at path: JSONPointer, known: [String], context: String) {
        if let near = KeySpelling.nearMiss(of: key, among: known) {
            diagnostics.append(
                .warning(
                    .nearMissKey, at: path,
                    """
                    unknown key \(JSONWriter.quoted(key)) \(context): did you mean \(JSONWriter.quoted(near))? \
                    Apple ignores keys it does not know, so this one does nothing
                    """
                ))
        } else {
            diagnostics.append(
                .warning(
                    .unknownKey, at: path,
                    """
                    unknown key \(JSONWriter.quoted(key)) \(context) is ignored by Apple's systems (known keys: \
                    \(known.joined(separator: ", ")))
                    """
                ))
        }
    }
}

/// Recognises misspellings of known keys: a different case, or at most two edits away.
enum KeySpelling {
    static func nearMiss(of key: String, among known: [String]) -> String? {
        let lowered = key.lowercased()
        if let same = known.first(where: { $0.lowercased() == lowered }) { return same }
        guard key.count >= 3 else { return nil }
        let candidates = known.filter { $0.count >= 3 }
        let best = candidates.map { ($0, editDistance(lowered, $0.lowercased())) }.min { $0.1 < $1.1 }
        guard let best, best.1 <= (best.0.count >= 8 ? 2 : 1) else { return nil }
        return best.0
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars)
        let b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
