/// The JSON shapes of reports, shared by `aasactl --json` and the API so both say the same thing.
extension Diagnostic {
    public var jsonValue: JSONValue {
        .object(["code": .string(code.rawValue), "path": .string(path.description), "message": .string(message)])
    }
}

extension LintReport {
    /// `{"file", "valid", "errors": [{"code","path","message"}], "warnings": [...]}`.
    public func jsonValue(file: String) -> JSONValue {
        .object([
            "file": .string(file),
            "valid": .bool(isValid),
            "errors": .array(errors.map(\.jsonValue)),
            "warnings": .array(warnings.map(\.jsonValue)),
        ])
    }
}

extension Resolution {
    /// `{"url", "appID", "detailsIndex", "componentIndex", "pathIndex", "excluded"}`.
    public func jsonValue(url: String) -> JSONValue {
        func int(_ v: Int?) -> JSONValue { v.map { .number(String($0)) } ?? .null }
        return .object([
            "url": .string(url),
            "appID": appID.map(JSONValue.string) ?? .null,
            "detailsIndex": int(rule?.detailsIndex),
            "componentIndex": int(rule?.kind == .component ? rule?.index : nil),
            "pathIndex": int(rule?.kind == .path ? rule?.index : nil),
            "excluded": .bool(excluded),
        ])
    }
}

extension DocumentDiff {
    public var jsonValue: JSONValue {
        func strings(_ s: [String]) -> JSONValue { .array(s.map(JSONValue.string)) }
        func rules(_ r: [Rule]) -> JSONValue {
            .array(
                r.map {
                    .object([
                        "rule": (try? JSONParser.parse($0.text).value) ?? .string($0.text),
                        "path": .string($0.location.pointer.description),
                    ])
                })
        }
        return .object([
            "changed": .bool(!isEmpty),
            "appsAdded": strings(appsAdded),
            "appsRemoved": strings(appsRemoved),
            "appOrderChanged": .bool(appOrderChanged),
            "rules": .array(
                self.rules.map {
                    .object(["appID": .string($0.appID), "added": rules($0.added), "removed": rules($0.removed)])
                }),
            "services": .array(
                services.map {
                    .object([
                        "service": .string($0.service), "added": strings($0.added), "removed": strings($0.removed),
                    ])
                }),
            "settings": strings(settings),
            "openerChanges": .array(
                openerChanges.map {
                    .object([
                        "url": .string($0.url), "before": $0.before.map(JSONValue.string) ?? .null,
                        "after": $0.after.map(JSONValue.string) ?? .null,
                    ])
                }),
        ])
    }

    /// Lines for people: `+`/`-` per rule and app, then the URLs whose opening app changes.
    public var textLines: [String] { Self.textLines(json: jsonValue) }

    /// The same lines from the JSON form, so a client showing a server's diff prints what
    /// `aasactl diff` prints for two files.
    public static func textLines(json: JSONValue) -> [String] {
        let o = json.objectValue ?? [:]
        func strings(_ key: String, in object: JSONObject = o) -> [String] {
            (object[key]?.arrayValue ?? []).compactMap(\.stringValue)
        }
        if o["changed"]?.boolValue == false { return ["no changes"] }
        var lines: [String] = []
        for app in strings("appsAdded") { lines.append("+ app \(app)") }
        for app in strings("appsRemoved") { lines.append("- app \(app)") }
        if o["appOrderChanged"]?.boolValue == true {
            lines.append("~ the order of apps changed (the first matching app opens a URL)")
        }
        let ruleText = { (r: JSONValue) in r.objectValue?["rule"].map { JSONWriter().string($0) } ?? "?" }
        for change in o["rules"]?.arrayValue ?? [] {
            let c = change.objectValue ?? [:]
            lines.append("\(c["appID"]?.stringValue ?? "?"):")
            for r in c["removed"]?.arrayValue ?? [] { lines.append("  - \(ruleText(r))") }
            for r in c["added"]?.arrayValue ?? [] { lines.append("  + \(ruleText(r))") }
        }
        for s in o["services"]?.arrayValue ?? [] {
            let service = s.objectValue ?? [:]
            let name = service["service"]?.stringValue ?? "?"
            for app in strings("added", in: service) { lines.append("+ \(name) \(app)") }
            for app in strings("removed", in: service) { lines.append("- \(name) \(app)") }
        }
        for s in strings("settings") { lines.append("~ \(s)") }
        let openers = o["openerChanges"]?.arrayValue ?? []
        if !openers.isEmpty {
            lines.append("URLs whose opening app changes:")
            for c in openers {
                let change = c.objectValue ?? [:]
                lines.append(
                    """
                      \(change["url"]?.stringValue ?? "?"): \(change["before"]?.stringValue ?? "browser") -> \
                    \(change["after"]?.stringValue ?? "browser")
                    """
                )
            }
        }
        return lines
    }
}
