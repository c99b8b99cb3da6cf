import AASAModel
import Testing

/// Issue 14, explain: built on the matcher's own compiled rules, so it never contradicts `decide`,
/// and each common slip gets its hint.
@Suite struct ExplainTests {
    static let app = "ABCDE12345.com.example.app"
    static let other = "FGHIJ67890.com.example.other"

    static func matcher(_ json: String) throws -> AASAMatcher {
        AASAMatcher(try #require(AASAParser.read(try JSONParser.parse(json).value).document))
    }

    static func codes(_ e: Explanation) -> [String] { e.hints.map(\.code) }

    /// Every conformance case (Apple's answers): each app's decision in the explanation is what
    /// `decide` says, and the explanation's opener is `resolve`'s.
    @Test(arguments: ["conformance/cases.json", "conformance/oracle-cases.jsonl"])
    func explainNeverContradictsDecide(_ file: String) throws {
        let cases = try SharedData.cases(file)
        for c in cases {
            let document = try #require(AASAParser.read(c.aasa).document)
            let matcher = AASAMatcher(document)
            let explanation = matcher.explain(url: c.url, domain: c.domain, expectedApp: c.appID)
            for trace in explanation.apps {
                let decided = matcher.decide(appID: trace.appID, url: c.url, domain: c.domain).decision
                #expect(
                    trace.decision == decided,
                    "\(c.name): explain says \(trace.decision) for \(trace.appID), decide \(decided)")
            }
            #expect(explanation.resolution.appID == matcher.resolve(url: c.url, domain: c.domain).appID, "\(c.name)")
            // The app the case is about: its explained decision is Apple's.
            if c.expect != .noMatch {
                #expect(explanation.apps.first { $0.appID == c.appID }?.decision == c.expect, "\(c.name)")
            }
        }
    }

    @Test func caseHint() throws {
        let m = try Self.matcher(
            #"{"applinks":{"details":[{"appIDs":["\#(Self.app)"],"components":[{"/":"/Shop/*"}]}]}}"#)
        let e = m.explain(url: "https://example.com/shop/1", expectedApp: Self.app)
        #expect(e.resolution.appID == nil)
        #expect(Self.codes(e).contains("case"))
        #expect(e.closest?.failure.component == "/")
        #expect(e.closest?.failure.subject == "/shop/1")
        #expect(e.closest?.failure.pattern == "/Shop/*")
    }

    @Test func trailingSlashHint() throws {
        let m = try Self.matcher(
            #"{"applinks":{"details":[{"appIDs":["\#(Self.app)"],"components":[{"/":"/shop/"}]}]}}"#)
        let e = m.explain(url: "https://example.com/shop/42")
        #expect(Self.codes(e) == ["trailing-slash"])
    }

    @Test func percentEncodingHint() throws {
        let m = try Self.matcher(
            #"{"applinks":{"details":[{"appIDs":["\#(Self.app)"],"components":[{"/":"/café/*"}]}]}}"#)
        let e = m.explain(url: "https://example.com/caf%C3%A9/1")
        #expect(Self.codes(e).contains("percent-encoding"))
    }

    @Test func absentQueryItemHint() throws {
        let m = try Self.matcher(
            #"{"applinks":{"details":[{"appIDs":["\#(Self.app)"],"components":[{"/":"/p/*","?":{"ref":"?*"}}]}]}}"#)
        let e = m.explain(url: "https://example.com/p/1")
        #expect(Self.codes(e) == ["query-item-absent"])
        #expect(e.closest?.failure.component == "?ref")
        #expect(e.closest?.failure.subject == "")
    }

    @Test func earlierExcludeAndEarlierAppHints() throws {
        let m = try Self.matcher(
            #"""
            {"applinks":{"details":[
              {"appIDs":["\#(Self.other)"],"components":[{"/":"/deals/*"}]},
              {"appIDs":["\#(Self.app)"],"components":[{"/":"/deals/x","exclude":true},{"/":"/deals/*"}]}]}}
            """#)
        let excluded = m.explain(url: "https://example.com/deals/x", expectedApp: Self.app)
        #expect(Self.codes(excluded).contains("earlier-exclude"))
        #expect(excluded.apps.first { $0.appID == Self.app }?.rules.last?.outcome == .notReached)
        let taken = m.explain(url: "https://example.com/deals/y", expectedApp: Self.app)
        #expect(Self.codes(taken) == ["earlier-app"])
        #expect(taken.resolution.appID == Self.other)
    }
}
