// The matcher's baselines (../shared/benchmark-baselines.md): re-parse and build a Regex per
// pattern on every call, and a precompiled byte-wise glob scanning every rule in order.
import AASAModel
import Foundation

// MARK: baseline 1: re-parse and regex per call

func naiveOpener(json: String, url: String) -> String? {
    guard let doc = try? AASADocument(json: json) else { return nil }
    let split = SplitURL(url)
    let path = split.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    let query = (split.query ?? "").split(separator: "&").map {
        $0.split(separator: "=", maxSplits: 1).map(String.init)
    }
    func regex(_ pattern: String) -> Regex<AnyRegexOutput>? {
        var r = "^"
        for c in pattern {
            switch c {
            case "*": r += ".*"
            case "?": r += "."
            default: r += NSRegularExpression.escapedPattern(for: String(c))
            }
        }
        return try? Regex(r + "$").dotMatchesNewlines()
    }
    var decided: [String: Bool] = [:]
    var order: [String] = []
    for entry in doc.applinks?.details ?? [] {
        for component in entry.components ?? [] {
            var ok = true
            if let p = component.path {
                let stripped = p.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
                ok = (try? regex(stripped)?.wholeMatch(in: path)) != nil
                if !ok, stripped.hasSuffix("/*") {
                    ok = (try? regex(String(stripped.dropLast(2)))?.wholeMatch(in: path)) != nil
                }
            }
            if ok, case .items(let items)? = component.query {
                for item in items {
                    let values = query.filter { $0.first == item.name }.map { $0.count > 1 ? $0[1] : "" }
                    let all = values.isEmpty ? [""] : values
                    if !all.allSatisfy({ (try? regex(item.pattern ?? "*")?.wholeMatch(in: $0)) != nil }) { ok = false }
                }
            }
            guard ok else { continue }
            for app in entry.effectiveAppIDs where decided[app] == nil {
                decided[app] = !(component.exclude ?? false)
                order.append(app)
            }
        }
    }
    let apps = AASAMatcher(doc).appIDs
    return apps.first { decided[$0] == true }
}

// MARK: baseline 2: byte-wise glob, every rule in order

struct GlobRule {
    let path: [UInt8]?
    let pathWithoutSlashStar: [UInt8]?
    let query: [(name: [UInt8], pattern: [UInt8])]
    let exclude: Bool
    let app: Int
}

func byteGlob(_ p: [UInt8], _ s: ArraySlice<UInt8>) -> Bool {
    var pi = 0
    var si = s.startIndex
    var starP = -1
    var starS = s.startIndex
    while si < s.endIndex {
        if pi < p.count, p[pi] == UInt8(ascii: "*") {
            starP = pi
            starS = si
            pi += 1
            continue
        }
        if pi < p.count, p[pi] == UInt8(ascii: "?") || p[pi] == s[si] {
            pi += 1
            si += 1
            continue
        }
        guard starP >= 0 else { return false }
        pi = starP + 1
        starS += 1
        si = starS
    }
    while pi < p.count, p[pi] == UInt8(ascii: "*") { pi += 1 }
    return pi == p.count
}

func strip(_ s: [UInt8]) -> ArraySlice<UInt8> {
    var a = s[...]
    while a.first == UInt8(ascii: "/") { a = a.dropFirst() }
    while a.last == UInt8(ascii: "/") { a = a.dropLast() }
    return a
}

func compileGlobRules(_ doc: AASADocument) -> (rules: [GlobRule], apps: [String]) {
    var rules: [GlobRule] = []
    var apps: [String] = []
    for entry in doc.applinks?.details ?? [] {
        let app = entry.effectiveAppIDs.first!
        apps.append(app)
        for c in entry.components ?? [] {
            let path = c.path.map { Array(strip(Array($0.utf8))) }
            var alt: [UInt8]?
            if let path, path.count >= 2, path.suffix(2) == [UInt8(ascii: "/"), UInt8(ascii: "*")] {
                alt = Array(path.dropLast(2))
            }
            var query: [(name: [UInt8], pattern: [UInt8])] = []
            if case .items(let items)? = c.query {
                query = items.map { (Array($0.name.utf8), Array(($0.pattern ?? "*").utf8)) }
            }
            rules.append(
                GlobRule(
                    path: path, pathWithoutSlashStar: alt, query: query, exclude: c.exclude ?? false,
                    app: apps.count - 1))
        }
    }
    return (rules, apps)
}

func globOpener(_ compiled: (rules: [GlobRule], apps: [String]), url: String) -> String? {
    let split = SplitURL(url)
    let path = strip(Array(split.path.utf8))
    let items = (split.query ?? "").split(separator: "&").map { item -> ([UInt8], [UInt8]) in
        let parts = item.split(separator: "=", maxSplits: 1)
        return (Array(parts[0].utf8), parts.count > 1 ? Array(parts[1].utf8) : [])
    }
    var decided = [Bool?](repeating: nil, count: compiled.apps.count)
    for rule in compiled.rules where decided[rule.app] == nil {
        if let p = rule.path, !byteGlob(p, path), !(rule.pathWithoutSlashStar.map { byteGlob($0, path) } ?? false) {
            continue
        }
        var ok = true
        for q in rule.query {
            let values = items.filter { $0.0 == q.name }.map(\.1)
            if !(values.isEmpty ? [[]] : values).allSatisfy({ byteGlob(q.pattern, $0[...]) }) {
                ok = false
                break
            }
        }
        if ok { decided[rule.app] = !rule.exclude }
    }
    return decided.firstIndex { $0 == true }.map { compiled.apps[$0] }
}
