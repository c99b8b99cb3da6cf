/// Why a URL opens the app it opens (or none): for each app, in order, each of its rules up to
/// the one that decides, with the first component that failed, compared as the matcher compares
/// it (decoded or not, case-folded or not); the closest rule that failed; and hints for the common
/// slips. Built from the same compiled rules and the same `matches` as `resolve` and `decide`, so
/// an explanation can never disagree with the answer.
public struct Explanation: Sendable {
    /// A component of a rule that did not match the URL.
    public struct Failure: Sendable, Hashable {
        /// `/`, `?` (the whole query), `?name` (one query item) or `#`.
        public var component: String
        /// The URL's part as the rule compares it.
        public var subject: String
        public var pattern: String
    }

    public enum RuleOutcome: Sendable, Hashable {
        case matched
        case failed(Failure)
        /// A component that is not a dictionary: it matches nothing.
        case malformed
        /// After the rule that decided for this app: never consulted.
        case notReached
    }

    public struct RuleTrace: Sendable, Hashable {
        public var rule: RuleLocation
        public var exclude: Bool
        public var outcome: RuleOutcome
    }

    public struct AppTrace: Sendable, Hashable {
        public var appID: String
        public var decision: Decision
        public var rules: [RuleTrace]
    }

    public struct Hint: Sendable, Hashable {
        /// `case`, `trailing-slash`, `percent-encoding`, `query-item-absent`, `earlier-exclude`,
        /// `earlier-app`, `no-rule` (and, from the server, `host-alias`, `wildcard-subdomain`).
        public var code: String
        public var message: String
        public var rule: RuleLocation?

        public init(code: String, message: String, rule: RuleLocation?) {
            self.code = code
            self.message = message
            self.rule = rule
        }
    }

    public var resolution: Resolution
    public var apps: [AppTrace]
    /// The failed rule that came nearest to matching (of `expectedApp` when one was named).
    public var closest: (appID: String, rule: RuleLocation, failure: Failure)?
    public var hints: [Hint]
}

extension AASAMatcher {
    /// Explains `url`. `expectedApp` is the app the asker expected to open it (nil: any app).
    public func explain(url: String, domain: String? = nil, expectedApp: String? = nil) -> Explanation {
        let split = SplitURL(url)
        let resolution = resolve(split, domain: domain)
        let subject = URLSubject(split)
        var apps: [Explanation.AppTrace] = []
        var closest: (appID: String, rule: RuleLocation, failure: Explanation.Failure, score: Int, index: Int)?
        var hints: [Explanation.Hint] = []
        // A URL on another host than the file's is decided before any rule is looked at.
        let onHost = hostMatches(split, domain)
        if !onHost {
            hints.append(
                .init(
                    code: "other-host",
                    message: "the URL's host is not \(domain ?? ""): this file does not speak for it", rule: nil))
        }
        for (app, appID) in appIDs.enumerated() {
            var decision = Decision.noMatch
            var traces: [Explanation.RuleTrace] = []
            for r in rules.indices where ruleApps[r].contains(app) {
                let rule = rules[r]
                guard onHost, decision == .noMatch else {
                    traces.append(.init(rule: rule.location, exclude: rule.exclude, outcome: .notReached))
                    continue
                }
                if rule.matchesNothing {
                    traces.append(.init(rule: rule.location, exclude: rule.exclude, outcome: .malformed))
                    continue
                }
                // The same test the matcher makes; the failure is then located component by component.
                if rule.matches(subject) {
                    decision = rule.exclude ? .exclude : .match
                    traces.append(.init(rule: rule.location, exclude: rule.exclude, outcome: .matched))
                    continue
                }
                let (failure, score) = Self.firstFailure(rule, subject)
                traces.append(.init(rule: rule.location, exclude: rule.exclude, outcome: .failed(failure)))
                let wanted = expectedApp.map { $0 == appID } ?? true
                if wanted, !rule.exclude, closest.map({ score > $0.score }) ?? true {
                    closest = (appID, rule.location, failure, score, r)
                }
            }
            apps.append(.init(appID: appID, decision: decision, rules: traces))
        }

        // Hints: what the expected app (or, when none was named, the closest rule) is missing.
        if let expectedApp, let trace = apps.first(where: { $0.appID == expectedApp }) {
            switch trace.decision {
            case .exclude:
                let exclude = trace.rules.first { $0.outcome == .matched }?.rule
                hints.append(
                    .init(
                        code: "earlier-exclude",
                        message: "an exclude rule of \(expectedApp) matches first, and the first matching rule decides",
                        rule: exclude))
            case .match where resolution.appID != expectedApp:
                let opener = resolution.appID ?? ""
                hints.append(
                    .init(
                        code: "earlier-app",
                        message: "\(opener) also matches and comes before \(expectedApp) in the file: it opens the URL",
                        rule: resolution.rule))
            case .noMatch:
                if closest == nil {
                    hints.append(
                        .init(
                            code: "no-rule", message: "\(expectedApp) has no rule that could open this URL", rule: nil))
                }
            default: break
            }
        }
        if let closest, resolution.appID == nil || expectedApp != nil && resolution.appID != expectedApp {
            hints += whatIf(rules[closest.index], subject: subject, split: split, failure: closest.failure)
        }
        return Explanation(
            resolution: resolution, apps: apps,
            closest: closest.map { ($0.appID, $0.rule, $0.failure) }, hints: hints)
    }

    /// The first component of `rule` that `subject` fails, and how many passed before it.
    static func firstFailure(_ rule: CompiledRule, _ subject: URLSubject) -> (Explanation.Failure, Int) {
        let folded = !rule.caseSensitive
        let encoded = rule.percentEncoded
        let r = rule.effective
        if let path = rule.path {
            let value = subject.path(encoded: encoded, folded: folded)
            if !path.matches(value) {
                return (.init(component: "/", subject: "/" + text(value), pattern: r.path ?? ""), 0)
            }
        }
        if let query = rule.query {
            switch query {
            case .whole(let glob):
                let value = subject.query(encoded: encoded, folded: folded)
                if !glob.matches(value), case .whole(let pattern)? = r.query {
                    return (.init(component: "?", subject: text(value), pattern: pattern), 1)
                }
            case .items(let predicates):
                let items = subject.queryItems(encoded: encoded, foldValues: folded)
                for (k, predicate) in predicates.enumerated() where !predicate.holds(in: items) {
                    let values = items.filter { $0.name == predicate.name }.map { text($0.value) }
                    var pattern = ""
                    if case .items(let patterns)? = r.query, patterns.indices.contains(k) {
                        pattern = patterns[k].pattern ?? ""
                    }
                    let name = text(predicate.name)
                    return (
                        .init(
                            component: "?" + name, subject: values.isEmpty ? "" : values.joined(separator: ", "),
                            pattern: pattern), 1
                    )
                }
            }
        }
        if let fragment = rule.fragment {
            let value = subject.fragment(encoded: encoded, folded: folded)
            if !fragment.matches(value) {
                return (.init(component: "#", subject: text(value), pattern: r.fragment ?? ""), 2)
            }
        }
        return (.init(component: "", subject: "", pattern: ""), 3)
    }

    /// The slips that would make `rule` match: each tried by compiling a variant of the rule (or
    /// of the URL) and asking the same matcher.
    private func whatIf(_ rule: CompiledRule, subject: URLSubject, split: SplitURL, failure: Explanation.Failure)
        -> [Explanation.Hint]
    {
        guard rule.location.kind == .component else { return [] }
        var hints: [Explanation.Hint] = []
        func variant(_ edit: (inout ComponentRule) -> Void) -> Bool {
            var changed = rule.effective
            edit(&changed)
            return compiler.compile(component: changed, at: rule.location).matches(subject)
        }
        let place = failure.component == "/" ? "path" : failure.component.hasPrefix("?") ? "query" : "fragment"
        if rule.caseSensitive && variant({ $0.caseSensitive = false }) {
            hints.append(
                .init(
                    code: "case",
                    message:
                        "the URL's \(place) differs from the pattern only in case, and the rule is case-sensitive: "
                        + "match the case, or set \"caseSensitive\": false", rule: rule.location))
        }
        if variant({ $0.percentEncoded = !rule.percentEncoded }) {
            hints.append(
                .init(
                    code: "percent-encoding",
                    message: rule.percentEncoded
                        ? """
                        the URL's \(place) is percent-encoded and the rule compares it as written: write the \
                        pattern encoded, or set \"percentEncoded\": false
                        """
                        : """
                        the rule decodes the URL before comparing (\"percentEncoded\": false) but its pattern is \
                        written encoded
                        """,
                    rule: rule.location))
        }
        if failure.component == "/", let path = rule.effective.path, !path.hasSuffix("*"),
            variant({ $0.path = String(path.reversed().drop(while: { $0 == "/" }).reversed()) + "/*" })
        {
            hints.append(
                .init(
                    code: "trailing-slash",
                    message: "trailing slashes are ignored: `\(path)` matches only that exact path, "
                        + "not the paths below it; write `\(path.hasSuffix("/") ? path + "*" : path + "/*")`",
                    rule: rule.location))
        }
        if failure.component.hasPrefix("?"), failure.component.count > 1, failure.subject.isEmpty,
            !subject.queryItems(encoded: rule.percentEncoded, foldValues: false).contains(where: {
                "?" + Self.text($0.name) == failure.component
            })
        {
            hints.append(
                .init(
                    code: "query-item-absent",
                    message:
                        "the URL has no `\(failure.component.dropFirst())` item; an absent item compares as the empty "
                        + "string, "
                        + "which `\(failure.pattern)` does not match", rule: rule.location))
        }
        return hints
    }

    static func text(_ scalars: [UInt32]) -> String {
        var view = String.UnicodeScalarView()
        for v in scalars { view.append(Unicode.Scalar(v) ?? "\u{FFFD}") }
        return String(view)
    }
}

extension Explanation {
    /// The explanation as JSON, in the API's shape (`Explanation` in openapi.yaml). `naming` adds
    /// what only the caller knows about a rule (the server: its team and rule ID).
    public func jsonValue(naming: (RuleLocation) -> [JSONMember] = { _ in [] }) -> JSONValue {
        func rule(_ location: RuleLocation, appID: String?, exclude: Bool?, outcome: RuleOutcome?) -> JSONValue {
            var o: JSONObject = ["pointer": .string(location.pointer.description)]
            if let appID { o.append("appID", .string(appID)) }
            for member in naming(location) where o[member.key] == nil { o.append(member.key, member.value) }
            if let exclude { o.append("exclude", .bool(exclude)) }
            switch outcome {
            case .matched?: o.append("result", .string("matched"))
            case .malformed?: o.append("result", .string("malformed"))
            case .notReached?: o.append("result", .string("not-reached"))
            case .failed(let f)?:
                o.append("result", .string("failed"))
                o.append("component", .string(f.component))
                o.append("subject", .string(f.subject))
                o.append("pattern", .string(f.pattern))
            case nil: break
            }
            return .object(o)
        }
        var out: JSONObject = [
            "apps": .array(
                apps.map { trace in
                    .object([
                        "appID": .string(trace.appID),
                        "decision": .string(
                            trace.decision == .match ? "match" : trace.decision == .exclude ? "exclude" : "none"),
                        "rules": .array(
                            trace.rules.map {
                                rule($0.rule, appID: trace.appID, exclude: $0.exclude, outcome: $0.outcome)
                            }),
                    ])
                })
        ]
        if let closest {
            out.append(
                "closest", rule(closest.rule, appID: closest.appID, exclude: false, outcome: .failed(closest.failure)))
        }
        out.append(
            "hints",
            .array(
                hints.map { hint in
                    var o: JSONObject = ["code": .string(hint.code), "message": .string(hint.message)]
                    if let location = hint.rule {
                        // The rule as its app's trace has it (a hint names a rule that was consulted).
                        let trace = apps.lazy.compactMap { app in
                            app.rules.first { $0.rule == location }.map { (app.appID, $0) }
                        }.first
                        o.append(
                            "rule",
                            rule(
                                location, appID: trace?.0, exclude: trace?.1.exclude,
                                outcome: trace?.1.outcome ?? .notReached))
                    }
                    return .object(o)
                }))
        return .object(out)
    }

    /// Lines for people, from the JSON above or the API's `explanation`.
    public static func textLines(json: JSONValue) -> [String] {
        let o = json.objectValue ?? [:]
        var lines: [String] = []
        func s(_ v: JSONValue?, _ key: String) -> String { v?.objectValue?[key]?.stringValue ?? "" }
        for app in o["apps"]?.arrayValue ?? [] {
            lines.append("  \(s(app, "appID")): \(s(app, "decision"))")
            for r in app.objectValue?["rules"]?.arrayValue ?? [] {
                let id = s(r, "ruleID").isEmpty ? s(r, "pointer") : "rule \(s(r, "ruleID"))"
                let kind = r.objectValue?["exclude"]?.boolValue == true ? "exclude " : ""
                switch s(r, "result") {
                case "failed":
                    lines.append(
                        """
                            \(kind)\(id): \(s(r, "component")) `\(s(r, "subject"))` does not match \
                        `\(s(r, "pattern"))`
                        """
                    )
                case "not-reached": lines.append("    \(kind)\(id): not consulted (an earlier rule decided)")
                default: lines.append("    \(kind)\(id): \(s(r, "result"))")
                }
            }
        }
        if let closest = o["closest"] {
            lines.append(
                "  closest: \(s(closest, "appID")) "
                    + "\(s(closest, "ruleID").isEmpty ? s(closest, "pointer") : "rule " + s(closest, "ruleID")) "
                    + "(\(s(closest, "component")) `\(s(closest, "subject"))` vs `\(s(closest, "pattern"))`)")
        }
        for hint in o["hints"]?.arrayValue ?? [] { lines.append("  hint [\(s(hint, "code"))]: \(s(hint, "message"))") }
        return lines
    }
}
