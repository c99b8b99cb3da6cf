/// The grants an import proposes: for each team, the fewest path prefixes that cover every rule of
/// its apps, each with the rules that needed it. A rule's prefix is the directory its pattern's
/// literal start names (`/shop/sale/*` → `/shop/sale`, `/about` → `/about`); a rule that can match
/// everywhere (no `/`, or a pattern that starts with a wildcard) needs `/`, the whole domain.
public enum GrantProposal {
    public struct Prefix: Sendable, Equatable {
        public var path: String
        /// The `/` patterns (or `(any path)`) of the rules this prefix is there for.
        public var rules: [String]
        /// The prefix is `/` because a rule can match every path.
        public var domainWide: Bool { path == "/" }
    }

    public static func propose(rules: [JSONValue], caseSensitive: Bool = true) -> [Prefix] {
        var prefixes: [Prefix] = []
        for rule in rules {
            let pattern = rule.objectValue?["/"]?.stringValue
            let needed = prefix(of: pattern)
            let label = pattern ?? "(any path)"
            if let i = prefixes.firstIndex(where: { $0.path == needed }) {
                prefixes[i].rules.append(label)
            } else {
                prefixes.append(Prefix(path: needed, rules: [label]))
            }
        }
        // Fewest: a prefix another one covers goes, its rules with the wider one.
        var kept: [Prefix] = []
        for candidate in prefixes.sorted(by: { $0.path.count < $1.path.count }) {
            if let i = kept.firstIndex(where: { covers($0.path, candidate.path) }) {
                kept[i].rules += candidate.rules
            } else {
                kept.append(candidate)
            }
        }
        return kept.sorted { $0.path < $1.path }
    }

    /// Where one team's proposed prefix reaches another team's rule.
    public struct Clash: Sendable, Equatable {
        public var team: String
        public var prefix: String
        public var reached: String
        public var rule: JSONValue
    }

    /// Every place where a prefix one team needs covers a rule of another team, so that no split of
    /// the path space keeps each team to its own rules. A team that needs the whole domain (`/`) is
    /// left out: the plan names it as domain-wide, which is the file's own choice.
    public static func interleaving(_ teams: [(team: String, rules: [JSONValue])]) -> [Clash] {
        // Each rule's directory once, not once per prefix of every other team (that made this
        // check half of a 1,000-rule import: scripts/bench/import).
        let directories = teams.map { team in team.rules.map { prefix(of: $0.objectValue?["/"]?.stringValue) } }
        var clashes: [Clash] = []
        for (team, rules) in teams {
            for prefix in propose(rules: rules) where !prefix.domainWide {
                for (o, (other, otherRules)) in teams.enumerated() where other != team {
                    for (rule, directory) in zip(otherRules, directories[o]) where covers(prefix.path, directory) {
                        clashes.append(Clash(team: team, prefix: prefix.path, reached: other, rule: rule))
                    }
                }
            }
        }
        return clashes
    }

    /// The directory a pattern's literal start names, or `/` when it names none.
    static func prefix(of pattern: String?) -> String {
        guard let pattern, pattern.hasPrefix("/") else { return "/" }
        let literal = PathGrant.literalStart(of: pattern)
        if literal == pattern {
            return literal.count > 1 && literal.hasSuffix("/") ? String(literal.dropLast()) : literal
        }
        guard let slash = literal.lastIndex(of: "/") else { return "/" }
        let directory = String(literal[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    static func covers(_ wide: String, _ narrow: String) -> Bool {
        wide == "/" || wide == narrow || narrow.hasPrefix(wide + "/")
    }
}
