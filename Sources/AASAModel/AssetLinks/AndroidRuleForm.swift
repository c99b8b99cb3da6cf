/// One rule of the service's rule syntax (Apple's `components` object, which both platforms' rules
/// are written in) as a Dynamic App Links component, or why it has no Android form. See
/// docs/assetlinks-spec.md, "What Apple's rules become on Android".
public enum AndroidRuleForm {
    /// A reason a rule cannot be written for Android, at `key` of the rule.
    public struct Problem: Sendable, Equatable {
        public var key: String
        public var message: String
        /// False for a difference Android can live with (a warning), true when the rule would mean
        /// something else (an error).
        public var isError: Bool
    }

    /// The component Android reads, and what could not be carried over. `/`, `#`, `exclude` and a
    /// `?` dictionary carry over; `comment` becomes `comments`. `caseSensitive: true` and
    /// `percentEncoded: true` are Apple's defaults and Android's only behaviour, so they are dropped;
    /// `false`, a `?` string and substitution variables have no Android form.
    public static func convert(_ rule: JSONValue) -> (component: JSONValue, problems: [Problem]) {
        guard let object = rule.objectValue else { return (rule, []) }
        var out = JSONObject()
        var problems: [Problem] = []
        func variableProblem(_ key: String, _ pattern: String) {
            if pattern.contains("$(") {
                problems.append(
                    Problem(
                        key: key,
                        message: "Android has no substitution variables: `\(pattern)` cannot be written for Android",
                        isError: true))
            }
        }
        for member in object {
            switch member.key {
            case "/", "#":
                if let pattern = member.value.stringValue { variableProblem(member.key, pattern) }
                out.append(member.key, member.value)
            case "?":
                if let query = member.value.objectValue {
                    for item in query { if let pattern = item.value.stringValue { variableProblem("?", pattern) } }
                    out.append("?", member.value)
                } else {
                    problems.append(
                        Problem(
                            key: "?",
                            message:
                                "Android's `?` is a dictionary of parameters; a whole-query string has no Android form",
                            isError: true))
                }
            case "exclude":
                out.append("exclude", member.value)
            case "comment", "comments":
                out.append("comments", member.value)
            case "caseSensitive", "percentEncoded":
                if member.value == .bool(false) {
                    let what = member.key == "caseSensitive" ? "compares case-sensitively" : "compares the decoded URL"
                    problems.append(
                        Problem(
                            key: member.key,
                            message: "Android always \(what): `\(member.key): false` has no Android form",
                            isError: true))
                }
            default:
                out.append(member.key, member.value)  // the validator names it (L061)
            }
        }
        // Apple reads a rule without `/`, `?` or `#` as every URL; a device reads a filter group with
        // no filter as no URL (UriRelativeFilterGroup.matchData). `"/": "*"`, a prefix of nothing,
        // keeps Apple's meaning.
        if out["/"] == nil && out["?"] == nil && out["#"] == nil { out.append("/", .string("*")) }
        return (.object(out), problems)
    }

    /// The domain's `applinks.defaults`, which Android's rules cannot follow: a warning for each
    /// Android rule that does not set the key itself.
    public static func defaultsProblems(_ rule: JSONValue, caseSensitive: Bool?, percentEncoded: Bool?) -> [Problem] {
        let object = rule.objectValue
        var problems: [Problem] = []
        if caseSensitive == false && object?["caseSensitive"] == nil {
            problems.append(
                Problem(
                    key: "caseSensitive",
                    message: "the domain's default caseSensitive: false does not reach Android, "
                        + "which compares case-sensitively", isError: false))
        }
        if percentEncoded == false && object?["percentEncoded"] == nil {
            problems.append(
                Problem(
                    key: "percentEncoded",
                    message: "the domain's default percentEncoded: false does not reach Android, "
                        + "which compares the decoded URL", isError: false))
        }
        return problems
    }
}
