/// URLs derived from a document's own patterns: for each rule, strings its patterns accept (with
/// `*` taken as nothing, one segment and two segments) and near misses of them (one character
/// more or less, other case, a trailing slash). Used to compare two documents, or a document and
/// its rendering, on the URLs where they could differ.
public enum ExampleURLs {
    public static func derive(from documents: [AASADocument], host: String = "example.com", limit: Int = 5_000)
        -> [String]
    {
        var seen = Set<String>()
        var urls: [String] = []
        func add(_ url: String) {
            if urls.count < limit, seen.insert(url).inserted { urls.append(url) }
        }
        add("https://\(host)/")
        for document in documents {
            let variables = VariableTable(document.applinks?.substitutionVariables)
            for entry in document.applinks?.details ?? [] {
                var rules: [(path: String?, query: QueryPattern?, fragment: String?, legacy: Bool)] = []
                for c in entry.components ?? [] {
                    let r = c.filled(from: entry.defaults).filled(from: document.applinks?.defaults)
                    rules.append((r.path, r.query, r.fragment, false))
                }
                for p in entry.paths ?? [] {
                    rules.append((p.hasPrefix("NOT ") ? String(p.dropFirst(4)) : p, nil, nil, true))
                }
                for rule in rules {
                    let paths = samples(rule.path ?? "/*", variables: variables, legacy: rule.legacy)
                    let queries = querySamples(rule.query, variables: variables)
                    let fragments = rule.fragment.map { samples($0, variables: variables, legacy: false) } ?? [""]
                    for path in paths {
                        let base = "https://\(host)" + (path.hasPrefix("/") ? "" : "/") + encodeLoosely(path)
                        add(base)
                        for q in queries where !q.isEmpty { add(base + "?" + encodeLoosely(q)) }
                        for f in fragments where !f.isEmpty { add(base + "#" + encodeLoosely(f)) }
                        if let q = queries.first(where: { !$0.isEmpty }),
                            let f = fragments.first(where: { !$0.isEmpty })
                        {
                            add(base + "?" + encodeLoosely(q) + "#" + encodeLoosely(f))
                        }
                    }
                }
            }
        }
        return urls
    }

    /// Strings the pattern accepts under three readings of its wildcards, and near misses.
    static func samples(_ pattern: String, variables: VariableTable, legacy: Bool) -> [String] {
        let tokens =
            legacy
            ? GlobCompiler(variables: variables, caseSensitive: true).valueTokens(pattern)
            : PatternSyntax.tokenize(pattern).tokens
        var out: [String] = []
        for variant in 0..<3 {
            let s = instantiate(tokens, variant: variant, variables: variables)
            out.append(s)
            if variant == 0 {
                out.append(s + "x")
                if !s.isEmpty { out.append(String(s.dropLast())) }
                out.append(s.uppercased())
                out.append(s + "/")
            }
        }
        return out
    }

    static func instantiate(_ tokens: [PatternToken], variant: Int, variables: VariableTable) -> String {
        var s = ""
        for token in tokens {
            switch token {
            case .literal(let c): s.unicodeScalars.append(c)
            case .anyOne: s += ["a", "1", "Z"][variant]
            case .anyRun: s += ["", "x", "x/y"][variant]
            case .variable(let name):
                switch variables.meaning(of: name) {
                case .characterClass(let cls):
                    let members = cls.members
                    if let c = Unicode.Scalar(members[variant * (members.count - 1) / 2]) { s.unicodeScalars.append(c) }
                case .values(let values) where !values.isEmpty:
                    let value = values[variant * (values.count - 1) / 2]
                    s += instantiate(
                        GlobCompiler(variables: variables, caseSensitive: true).valueTokens(value), variant: variant,
                        variables: variables)
                default:
                    s += "$(\(name))"
                }
            }
        }
        return s
    }

    static func querySamples(_ query: QueryPattern?, variables: VariableTable) -> [String] {
        switch query {
        case nil: return [""]
        case .whole(let p)?: return samples(p, variables: variables, legacy: false) + [""]
        case .items(let items)?:
            var out = [""]
            for variant in 0..<3 {
                out.append(
                    items.map { item in
                        let value =
                            item.pattern.map {
                                instantiate(PatternSyntax.tokenize($0).tokens, variant: variant, variables: variables)
                            } ?? "1"
                        return item.name + "=" + value
                    }.joined(separator: "&"))
            }
            return out
        }
    }

    /// Encodes what cannot stand raw in a URL, leaving `%` sequences as the pattern wrote them.
    static func encodeLoosely(_ s: String) -> String {
        PercentEncoding.encodeForURL(s).replacingHash()
    }
}

extension String {
    fileprivate func replacingHash() -> String {
        guard contains("#") else { return self }
        var out = ""
        for c in self {
            switch c {
            case "#": out += "%23"
            default: out.append(c)
            }
        }
        return out
    }
}
