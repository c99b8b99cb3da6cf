import AASAModel
import PropertyBased
import Testing

/// A small deterministic generator, seeded by the property framework so failures reproduce.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum RandomAASA {
    static let pieces = [
        "a", "b", "B", "/", "/", "*", "?", "x", "%20", "%2F", " ", "é", "$(digit)", "$(food)", "$(upper)", "-", ".",
    ]
    static let food = ["ab", "b*", "", "é"]

    static func pattern(_ rng: inout SplitMix, maxPieces: Int = 6) -> String {
        (0..<Int.random(in: 0...maxPieces, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
    }

    static func subject(_ rng: inout SplitMix) -> String {
        // Raw non-ASCII is left out: the matcher first encodes it as a browser would, the reference does not.
        let parts = ["a", "b", "B", "/", "x", "ab", "%20", "%2F", "%C3%A9", "1", "7", "Q"]
        return "/" + (0..<Int.random(in: 0...6, using: &rng)).map { _ in parts.randomElement(using: &rng)! }.joined()
    }

    static func component(_ rng: inout SplitMix) -> String {
        var keys: [String] = []
        do { keys.append(#""/":\#(JSONWriter.quoted(pattern(&rng)))"#) }
        if Int.random(in: 0..<4, using: &rng) == 0 { keys.append(#""exclude":true"#) }
        if Int.random(in: 0..<3, using: &rng) == 0 { keys.append(#""caseSensitive":false"#) }
        if Int.random(in: 0..<3, using: &rng) == 0 { keys.append(#""percentEncoded":false"#) }
        if Int.random(in: 0..<4, using: &rng) == 0 {
            keys.append(#""?":{"q":\#(JSONWriter.quoted(pattern(&rng, maxPieces: 2)))}"#)
        }
        if Int.random(in: 0..<6, using: &rng) == 0 {
            keys.append(##""#":\##(JSONWriter.quoted(pattern(&rng, maxPieces: 2)))"##)
        }
        if Int.random(in: 0..<8, using: &rng) == 0 { keys.append(#""x-unknown":[1,{"a":null}]"#) }
        return "{" + keys.shuffled(using: &rng).joined(separator: ",") + "}"
    }

    static func document(_ rng: inout SplitMix) -> String {
        let entries = (0..<Int.random(in: 1...3, using: &rng)).map { e -> String in
            let apps = (0..<Int.random(in: 1...2, using: &rng)).map { _ in
                "\"ABCDE12345.com.app\(Int.random(in: 0...3, using: &rng))\""
            }
            let comps = (0..<Int.random(in: 0...5, using: &rng)).map { _ in component(&rng) }
            return #"{"appIDs":[\#(apps.joined(separator: ","))],"components":[\#(comps.joined(separator: ","))]}"#
        }
        let foodJSON = food.map { JSONWriter.quoted($0) }.joined(separator: ",")
        return
            #"""
            {"applinks":{"substitutionVariables":{"food":[\#(foodJSON)]},\#
            "details":[\#(entries.joined(separator: ","))]}}
            """#
    }
}

/// An independent, deliberately naive reading of the path rules: recursive backtracking over the
/// pattern text, re-parsed on every call. Slow, obvious, and not sharing code with the matcher.
enum ReferenceMatcher {
    static func decide(_ document: AASADocument, app: String, url: String) -> Decision {
        let path = String(url.drop(while: { $0 != "/" }).dropFirst(2).drop(while: { $0 != "/" }))
        let food = document.applinks?.substitutionVariables?.first?.values ?? []
        for entry in document.applinks?.details ?? [] where entry.effectiveAppIDs.contains(app) {
            for c in entry.components ?? [] {
                guard c.query == nil, c.fragment == nil else { return .noMatch }  // not modelled here
                let insensitive = c.caseSensitive == false
                var subject = c.percentEncoded == false ? (decode(path) ?? path) : path
                var pattern = c.path ?? "*"
                if insensitive {
                    subject = subject.lowercased()
                    pattern = pattern.lowercased()
                }
                let s = Array(strip(subject).unicodeScalars)
                let p = strip(pattern)
                var ok = glob(
                    Array(p.unicodeScalars)[...], s[...], food: insensitive ? food.map { $0.lowercased() } : food,
                    insensitive: insensitive)
                if !ok, p.hasSuffix("/*") {
                    ok = glob(
                        Array(p.dropLast(2).unicodeScalars)[...], s[...],
                        food: insensitive ? food.map { $0.lowercased() } : food, insensitive: insensitive)
                }
                if ok { return c.exclude == true ? .exclude : .match }
            }
        }
        return .noMatch
    }

    static func strip(_ s: String) -> String {
        String(s.drop(while: { $0 == "/" }).reversed().drop(while: { $0 == "/" }).reversed())
    }

    static func decode(_ s: String) -> String? {
        var bytes: [UInt8] = []
        var i = s.utf8.startIndex
        let u = s.utf8
        while i != u.endIndex {
            if u[i] == UInt8(ascii: "%") {
                let a = u.index(after: i)
                guard a != u.endIndex, u.index(after: a) != u.endIndex,
                    let v = UInt8(String(decoding: [u[a], u[u.index(after: a)]], as: UTF8.self), radix: 16)
                else { return nil }
                bytes.append(v)
                i = u.index(a, offsetBy: 2)
            } else {
                bytes.append(u[i])
                i = u.index(after: i)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func glob(
        _ p: ArraySlice<Unicode.Scalar>, _ s: ArraySlice<Unicode.Scalar>, food: [String], insensitive: Bool
    ) -> Bool {
        guard let first = p.first else { return s.isEmpty }
        let rest = p.dropFirst()
        if first == "$", p.starts(with: Array("$(".unicodeScalars)), let close = p.firstIndex(of: ")") {
            let name = String(String.UnicodeScalarView(p[(p.startIndex + 2)..<close]))
            let after = p[(close + 1)...]
            let classes: [String: (Unicode.Scalar) -> Bool] = [
                "digit": { $0.properties.numericType != nil && $0.isASCII },
                "upper": {
                    $0.isASCII && $0.properties.isUppercase || (insensitive && $0.isASCII && $0.properties.isLowercase)
                },
            ]
            if let cls = classes[name] {
                guard let c = s.first, cls(c) else { return false }
                return glob(after, s.dropFirst(), food: food, insensitive: insensitive)
            }
            if name == "food" {
                return food.contains { value in
                    let expanded = value.unicodeScalars.map { $0 == "*" ? "\u{E001}" : $0 == "?" ? "\u{E002}" : $0 }
                    return glob(ArraySlice(expanded) + after, s, food: food, insensitive: insensitive)
                }
            }
            return false
        }
        switch first {
        case "*", "\u{E001}":
            for k in s.indices + [s.endIndex] where glob(rest, s[k...], food: food, insensitive: insensitive) {
                return true
            }
            return false
        case "?", "\u{E002}":
            return !s.isEmpty && glob(rest, s.dropFirst(), food: food, insensitive: insensitive)
        default:
            return s.first == first && glob(rest, s.dropFirst(), food: food, insensitive: insensitive)
        }
    }
}

@Suite struct PropertyTests {
    @Test func renderThenParseGivesTheSameDocument() async {
        await propertyCheck(count: 300, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var rng = SplitMix(seed)
            let text = RandomAASA.document(&rng)
            let doc = AASADocument.parse(text)
            for options in [AASARenderer.Options(), .init(pretty: true)] {
                let bytes = AASARenderer.render(doc, options: options)
                #expect(AASAParser.parse(bytes).document == doc, "\(text)")
                #expect(AASARenderer.render(doc, options: options) == bytes)
            }
        }
    }

    /// The indexed, compiled matcher agrees with the naive reference on random paths.
    @Test func compiledMatcherAgreesWithTheNaiveReference() async {
        await propertyCheck(count: 400, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var rng = SplitMix(seed)
            var text = RandomAASA.document(&rng)
            // The reference models paths only.
            text = text.replacingAll(#","?":{"#, with: #","x-q":{"#).replacingAll(#"{"?":{"#, with: #"{"x-q":{"#)
                .replacingAll(##","#":"##, with: #","x-f":"#).replacingAll(##"{"#":"##, with: #"{"x-f":"#)
            let doc = AASADocument.parse(text)
            let matcher = AASAMatcher(doc)
            for _ in 0..<20 {
                let url = "https://example.com" + RandomAASA.subject(&rng)
                for app in matcher.appIDs {
                    let fast = matcher.decide(appID: app, url: url).decision
                    let slow = ReferenceMatcher.decide(doc, app: app, url: url)
                    #expect(fast == slow, "\(text) \(url) \(app)")
                }
            }
        }
    }

    @Test func randomBytesNeverCrashTheLinter() async {
        await propertyCheck(count: 500, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var rng = SplitMix(seed)
            let alphabet =
                Array("{}[]\",:0123456789.eE-+tfnrul \\/\n\u{0}\"applinksdetailscomponentsappIDs$()?*#é".utf8) + [
                    0xFF, 0xC3, 0x80,
                ]
            let bytes = (0..<Int.random(in: 0...200, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            _ = AASALinter.lint(bytes)
        }
    }

    /// Valid documents with random bytes changed, inserted or removed: the linter reports, never traps,
    /// and a mutated document that still reads renders and matches.
    @Test func mutatedDocumentsNeverCrash() async {
        await propertyCheck(count: 400, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var rng = SplitMix(seed)
            var bytes = Array(RandomAASA.document(&rng).utf8)
            for _ in 0..<Int.random(in: 1...4, using: &rng) where !bytes.isEmpty {
                let i = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[i] = UInt8.random(in: 0...255, using: &rng)
                case 1: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: i)
                default: bytes.remove(at: i)
                }
            }
            let report = AASALinter.lint(bytes)
            if let doc = report.document {
                let m = AASAMatcher(doc)
                _ = m.resolve(url: "https://example.com" + RandomAASA.subject(&rng))
                _ = AASARenderer.render(doc, options: .init(legacy: true))
            }
        }
    }

    /// A shadowing claim is a proof: every URL the shadowed rule matches, the earlier rule matches.
    @Test func shadowingClaimsHoldOnSamples() async {
        await propertyCheck(count: 200, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var rng = SplitMix(seed)
            let text = RandomAASA.document(&rng)
            let doc = AASADocument.parse(text)
            let analysis = RuleAnalyzer.analyze(doc)
            let matcher = AASAMatcher(doc)
            for s in analysis.shadowed {
                for url in ExampleURLs.derive(from: [doc], limit: 300) {
                    for app in s.appIDs {
                        let d = matcher.decide(appID: app, url: url)
                        #expect(
                            d.rule != s.rule,
                            "\(s.rule) was claimed shadowed by \(s.shadowedBy) but decided \(url) in \(text)")
                    }
                }
            }
        }
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
