// AASAModel's hot paths against the baselines of ../shared/benchmark-baselines.md, each measured
// in this same run on the same generated input:
// - matcher, on a 200-rule file: a naive matcher that re-parses the document and builds a Regex
//   per pattern on every call, and a precompiled byte-wise glob scanning every rule in order
//   (with Apple's slash, /* and query rules on);
// - renderer, on a 200-rule and a 1,500-rule file: JSONSerialization and JSONEncoder, both with
//   sorted keys, of the same document.
// Usage: aasa-bench-model [--quick]   (prints Markdown tables)
import AASAModel
import Foundation

let quick = CommandLine.arguments.contains("--quick")

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
    precondition(
        matcher.resolve(url: url).appID == naiveOpener(json: json, url: url), "naive baseline disagrees on \(url)")
}

let seconds = quick ? 0.3 : 2.0
let naive = measure(urls: Array(urls.prefix(quick ? 20 : 100)), minimumSeconds: seconds) {
    naiveOpener(json: json, url: $0)
}
let glob = measure(urls: urls, minimumSeconds: seconds) { globOpener(compiledGlobs, url: $0) }
let ours = measure(urls: urls, minimumSeconds: seconds) { matcher.resolve(url: $0).appID }

func row(_ name: String, _ r: (perSecond: Double, latencies: [Double]), against ours: Double) -> String {
    let p50 = percentile(r.latencies, 0.5) / 1000
    let p99 = percentile(r.latencies, 0.99) / 1000
    return
        """
        | \(name) | \(Int(r.perSecond)) | \(String(format: "%.2f", ours / r.perSecond))x | \
        \(String(format: "%.2f", p50)) | \(String(format: "%.2f", p99)) |
        """
}
print("matcher: \(ruleCount) rules, \(urls.count) URLs, \(quick ? "quick" : "full") run, 1 thread")
print("")
print("| matcher | URL/s | compiled is | p50 µs | p99 µs |")
print("|---|---|---|---|---|")
print(row("naive: re-parse + Regex per call", naive, against: ours.perSecond))
print(row("glob scan, every rule in order", glob, against: ours.perSecond))
print(row("AASAMatcher (compiled, indexed)", ours, against: ours.perSecond))
print("")

// MARK: renderer

let renderer = JSONEncoder()
renderer.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
print("renderer: the same document to bytes, \(quick ? "quick" : "full") run, 1 thread")
print("")
print("| renderer | rules | bytes | documents/s | canonical is | p50 µs | p99 µs |")
print("|---|---|---|---|---|---|---|")
for rules in [200, 1_500] {
    let text = makeDocument(rules: rules)
    let doc = try AASADocument(json: text)
    let foundation = try JSONSerialization.jsonObject(with: Data(text.utf8))
    let canonical = AASARenderer.render(doc)
    // Same content before speed: the canonical bytes read back as the same document.
    let reread = try AASADocument(json: canonical)
    precondition(reread == doc, "canonical bytes do not round-trip")
    let once = [text]
    let serialization = measure(urls: once, minimumSeconds: seconds) { _ in
        (try? JSONSerialization.data(withJSONObject: foundation, options: [.sortedKeys, .withoutEscapingSlashes])).map {
            "\($0.count)"
        }
    }
    let encoder = measure(urls: once, minimumSeconds: seconds) { _ in (try? renderer.encode(doc)).map { "\($0.count)" }
    }
    let ours = measure(urls: once, minimumSeconds: seconds) { _ in "\(AASARenderer.render(doc).count)" }
    func line(_ name: String, _ r: (perSecond: Double, latencies: [Double])) -> String {
        let p50 = percentile(r.latencies, 0.5) / 1000
        let p99 = percentile(r.latencies, 0.99) / 1000
        return
            "| \(name) | \(rules) | \(canonical.count) | \(Int(r.perSecond)) | "
            + "\(String(format: "%.2f", ours.perSecond / r.perSecond))x "
            + "| \(String(format: "%.1f", p50)) | \(String(format: "%.1f", p99)) |"
    }
    print(line("JSONSerialization, sorted keys", serialization))
    print(line("JSONEncoder (Codable), sorted keys", encoder))
    print(line("AASARenderer (canonical)", ours))
}
print("")

// MARK: parser

// JSONParser reads every stored rule set, draft and fetched file; Foundation's JSONSerialization
// (which keeps neither key order, duplicates nor number lexemes) is the baseline.
print("parser: the same document from bytes, \(quick ? "quick" : "full") run, 1 thread")
print("")
print("| parser | rules | bytes | documents/s | JSONParser is | p50 µs | p99 µs |")
print("|---|---|---|---|---|---|---|")
for rules in [200, 1_500] {
    let bytes = Array(makeDocument(rules: rules).utf8)
    let data = Data(bytes)
    let once = [""]
    let foundation = measure(urls: once, minimumSeconds: seconds) { _ in
        (try? JSONSerialization.jsonObject(with: data)).map { _ in "ok" }
    }
    let ours = measure(urls: once, minimumSeconds: seconds) { _ in
        (try? JSONParser.parse(bytes)).map { _ in "ok" }
    }
    func line(_ name: String, _ r: (perSecond: Double, latencies: [Double])) -> String {
        "| \(name) | \(rules) | \(bytes.count) | \(Int(r.perSecond)) | "
            + "\(String(format: "%.2f", ours.perSecond / r.perSecond))x "
            + "| \(String(format: "%.1f", percentile(r.latencies, 0.5) / 1000)) "
            + "| \(String(format: "%.1f", percentile(r.latencies, 0.99) / 1000)) |"
    }
    print(line("JSONSerialization.jsonObject", foundation))
    print(line("JSONParser (order, duplicates, lexemes kept)", ours))
}

// MARK: request bodies, per MB

// What aasad's input check pays for a body before any service sees it (issue 49: a string of
// escaped surrogate pairs took time growing with the square of its length, 12 s for 2.4 MB). Each
// body is parsed at 1, 2 and 4 MB; linear means the 4 MB body costs 4x the 1 MB one.
print("")
print("request bodies: JSONParser per MB (the input check's parse), \(quick ? "quick" : "full") run, 1 thread")
print("")
print("| body | MB | ms | ms per MB | 4 MB / 1 MB | JSONSerialization ms |")
print("|---|---|---|---|---|---|")
let bodyKinds: [(String, (Int) -> [UInt8])] = [
    (
        "string of escaped surrogate pairs",
        { megabytes in
            let pair = #"\udbf6\udd5a"#
            return Array(
                ("{\"aasa\": \"" + String(repeating: pair, count: megabytes * (1 << 20) / pair.utf8.count) + "\"}").utf8
            )
        }
    ),
    (
        "plain ASCII string",
        { megabytes in Array(("{\"aasa\": \"" + String(repeating: "a", count: megabytes << 20) + "\"}").utf8) }
    ),
    (
        "array of empty objects",
        { megabytes in
            Array(("[" + Array(repeating: "{}", count: (megabytes << 20) / 3).joined(separator: ",") + "]").utf8)
        }
    ),
]
for (name, make) in bodyKinds {
    var oneMB = 0.0
    for megabytes in [1, 2, 4] {
        let bytes = make(megabytes)
        let data = Data(bytes)
        let ours = measure(urls: [""], minimumSeconds: quick ? 0.1 : 1) { _ in
            (try? JSONParser.parse(bytes)).map { _ in "ok" }
        }
        let foundation = measure(urls: [""], minimumSeconds: quick ? 0.1 : 1) { _ in
            (try? JSONSerialization.jsonObject(with: data)).map { _ in "ok" }
        }
        let ms = percentile(ours.latencies, 0.5) / 1e6
        if megabytes == 1 { oneMB = ms }
        print(
            "| \(name) | \(megabytes) | \(String(format: "%.1f", ms)) | "
                + "\(String(format: "%.1f", ms / Double(megabytes))) | "
                + (megabytes == 4 ? String(format: "%.2f", ms / oneMB) : "") + " | "
                + "\(String(format: "%.1f", percentile(foundation.latencies, 0.5) / 1e6)) |")
    }
}
print("")
print("peak RSS of the model benchmarks: \(String(format: "%.1f", peakRSSMiB())) MiB")

// MARK: Android (Dynamic App Links), the same baselines

let androidBytes = makeAssetLinks(apps: 20, rules: 10)
let android = AndroidMatcher(AssetLinksDocument.parse(androidBytes).document!)
let androidURLs = (0..<2_000).map { i in
    "https://example.com/t\(i % 20)/s\(i % 12)/item\(i)" + (i % 2 == 0 ? "?q=\(i)" : "")
}
func androidOpeners(_ url: String) -> [String] {
    android.decisions(url: url).filter { $0.decision == .open }.map(\.packageName)
}
for url in androidURLs.prefix(quick ? 20 : 100) {
    precondition(
        androidOpeners(url) == naiveAndroidOpeners(androidBytes, url: url), "naive Android baseline disagrees on \(url)"
    )
}
let androidNaive = measure(urls: Array(androidURLs.prefix(quick ? 20 : 100)), minimumSeconds: seconds) {
    naiveAndroidOpeners(androidBytes, url: $0).first
}
let androidOurs = measure(urls: androidURLs, minimumSeconds: seconds) { androidOpeners($0).first }
print(
    """
    Android matcher: 20 apps × (10 rules + exclude-all), \(androidURLs.count) URLs, \(quick ? "quick" : "full") \
    run, 1 thread
    """
)
print("")
print("| matcher | URL/s | compiled is | p50 µs | p99 µs |")
print("|---|---|---|---|---|")
print(row("naive: re-parse + Regex per call", androidNaive, against: androidOurs.perSecond))
print(row("AndroidMatcher (compiled)", androidOurs, against: androidOurs.perSecond))
print("")
