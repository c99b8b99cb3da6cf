// Matcher throughput on a generated 200-rule file against two baselines measured in the same run
// (../shared/benchmark-baselines.md): a naive matcher that re-parses the document and builds a
// Regex per pattern on every call, and a precompiled byte-wise glob scanning every rule in order
// (with Apple's slash, /* and query rules on). Usage: aasa-bench-matcher [--quick]
import AASAModel
import Foundation

let quick = CommandLine.arguments.contains("--quick")

// MARK: workload

func makeDocument(rules: Int) -> String {
    var entries: [String] = []
    var count = 0
    var team = 0
    while count < rules {
        var components: [String] = []
        components.append(#"{"/":"/t\#(team)/private/*","exclude":true}"#)
        for j in 0..<8 {
            switch j % 4 {
            case 0: components.append(#"{"/":"/t\#(team)/section\#(j)/*"}"#)
            case 1: components.append(#"{"/":"/t\#(team)/item/????/s\#(j)"}"#)
            case 2: components.append(#"{"/":"/t\#(team)/search\#(j)","?":{"q":"?*"}}"#)
            default: components.append(#"{"/":"/t\#(team)/docs\#(j)/*.pdf"}"#)
            }
        }
        components.append(#"{"/":"/shared/t\#(team)/*"}"#)
        count += components.count
        entries.append(#"{"appIDs":["ABCDE12345.com.example.team\#(team)"],"components":[\#(components.joined(separator: ","))]}"#)
        team += 1
    }
    return #"{"applinks":{"details":[\#(entries.joined(separator: ","))]}}"#
}

func makeURLs(count: Int, teams: Int) -> [String] {
    var rng = SystemRandomNumberGenerator()
    let shapes: [(Int) -> String] = [
        { "/t\($0)/section0/page/\(Int.random(in: 0..<1000, using: &rng))" },
        { "/t\($0)/item/1234/s1" },
        { "/t\($0)/search2?q=shoes&page=2" },
        { "/t\($0)/docs3/manual.pdf" },
        { "/t\($0)/private/x" },
        { "/shared/t\($0)/x/y" },
        { "/nowhere/\($0)" },
        { "/t\($0)/section0" },
    ]
    return (0..<count).map { i in "https://example.com" + shapes[i % shapes.count](Int.random(in: 0..<teams, using: &rng)) }
}

// MARK: baseline 1: re-parse and regex per call

func naiveOpener(json: String, url: String) -> String? {
    guard let doc = try? AASADocument(json: json) else { return nil }
    let split = SplitURL(url)
    let path = split.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    let query = (split.query ?? "").split(separator: "&").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
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
                if !ok, stripped.hasSuffix("/*") { ok = (try? regex(String(stripped.dropLast(2)))?.wholeMatch(in: path)) != nil }
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
    var pi = 0, si = s.startIndex, starP = -1, starS = s.startIndex
    while si < s.endIndex {
        if pi < p.count, p[pi] == UInt8(ascii: "*") { starP = pi; starS = si; pi += 1; continue }
        if pi < p.count, p[pi] == UInt8(ascii: "?") || p[pi] == s[si] { pi += 1; si += 1; continue }
        guard starP >= 0 else { return false }
        pi = starP + 1; starS += 1; si = starS
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
            if let path, path.count >= 2, path.suffix(2) == [UInt8(ascii: "/"), UInt8(ascii: "*")] { alt = Array(path.dropLast(2)) }
            var query: [(name: [UInt8], pattern: [UInt8])] = []
            if case .items(let items)? = c.query { query = items.map { (Array($0.name.utf8), Array(($0.pattern ?? "*").utf8)) } }
            rules.append(GlobRule(path: path, pathWithoutSlashStar: alt, query: query, exclude: c.exclude ?? false, app: apps.count - 1))
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
        if let p = rule.path, !byteGlob(p, path), !(rule.pathWithoutSlashStar.map { byteGlob($0, path) } ?? false) { continue }
        var ok = true
        for q in rule.query {
            let values = items.filter { $0.0 == q.name }.map(\.1)
            if !(values.isEmpty ? [[]] : values).allSatisfy({ byteGlob(q.pattern, $0[...]) }) { ok = false; break }
        }
        if ok { decided[rule.app] = !rule.exclude }
    }
    return decided.firstIndex { $0 == true }.map { compiled.apps[$0] }
}

// MARK: measurement

func measure(_ label: String, urls: [String], minimumSeconds: Double, _ body: (String) -> String?) -> (perSecond: Double, latencies: [Double]) {
    var done = 0
    var latencies: [Double] = []
    let clock = ContinuousClock()
    let start = clock.now
    var sink = 0
    repeat {
        for url in urls {
            let t0 = clock.now
            sink &+= body(url)?.utf8.count ?? 0
            let d = clock.now - t0
            latencies.append(Double(d.components.seconds) * 1e9 + Double(d.components.attoseconds) / 1e9)
            done += 1
        }
    } while (clock.now - start) < .seconds(minimumSeconds)
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    if sink == 42 { print("") }
    return (Double(done) / seconds, latencies.sorted())
}

func percentile(_ sorted: [Double], _ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }

func peakRSSMiB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

let json = makeDocument(rules: 200)
let document = try AASADocument(json: json)
let matcher = AASAMatcher(document)
let compiledGlobs = compileGlobRules(document)
let ruleCount = (document.applinks?.details ?? []).reduce(0) { $0 + ($1.components?.count ?? 0) }
let urls = makeURLs(count: 2_000, teams: document.applinks?.details?.count ?? 1)

// The three must agree before their speeds mean anything.
for url in urls.prefix(quick ? 200 : 2_000) {
    let ours = matcher.resolve(url: url).appID
    let glob = globOpener(compiledGlobs, url: url)
    precondition(ours == glob, "glob baseline disagrees on \(url): \(ours ?? "nil") vs \(glob ?? "nil")")
}
for url in urls.prefix(quick ? 10 : 50) {
    precondition(matcher.resolve(url: url).appID == naiveOpener(json: json, url: url), "naive baseline disagrees on \(url)")
}

let seconds = quick ? 0.3 : 2.0
let naive = measure("naive", urls: Array(urls.prefix(quick ? 20 : 100)), minimumSeconds: seconds) { naiveOpener(json: json, url: $0) }
let glob = measure("glob", urls: urls, minimumSeconds: seconds) { globOpener(compiledGlobs, url: $0) }
let ours = measure("compiled", urls: urls, minimumSeconds: seconds) { matcher.resolve(url: $0).appID }

func row(_ name: String, _ r: (perSecond: Double, latencies: [Double])) -> String {
    let p50 = percentile(r.latencies, 0.5) / 1000, p99 = percentile(r.latencies, 0.99) / 1000
    return "| \(name) | \(Int(r.perSecond)) | \(String(format: "%.1f", ours.perSecond / r.perSecond))x | \(String(format: "%.2f", p50)) | \(String(format: "%.2f", p99)) |"
}
print("matcher: \(ruleCount) rules, \(urls.count) URLs, \(quick ? "quick" : "full") run, 1 thread")
print("| matcher | URL/s | compiled is | p50 µs | p99 µs |")
print("|---|---|---|---|---|")
print(row("naive: re-parse + Regex per call", naive))
print(row("glob scan, every rule in order", glob))
print(row("AASAMatcher (compiled, indexed)", ours))
print("peak RSS: \(String(format: "%.1f", peakRSSMiB())) MiB")
