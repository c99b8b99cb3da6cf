import PropertyBased
import Testing

@testable import AASAModel

/// The prefix index only decides which pairs of rules the automata are asked about: it must never
/// change what the analysis finds, and it must make a domain of many distinct paths cheap.
struct AnalysisIndexTests {
    static func compare(_ document: AASADocument) -> (indexed: RuleAnalysis, all: RuleAnalysis) {
        let big = 200_000_000
        let indexed = RuleAnalyzer.analyze(
            document, matcher: nil, host: "example.com",
            budget: AnalysisBudget(steps: big), pairing: .indexed)
        let all = RuleAnalyzer.analyze(
            document, matcher: nil, host: "example.com",
            budget: AnalysisBudget(steps: big), pairing: .allPairs)
        return (indexed, all)
    }

    @Test func indexedAnalysisFindsWhatComparingEveryPairFinds() async {
        await propertyCheck(count: 300, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var rng = SplitMix(seed)
            // More rules per document than the other properties use, so that pairs abound.
            let entries = (0..<Int.random(in: 1...4, using: &rng)).map { _ -> String in
                let app = "\"ABCDE12345.com.app\(Int.random(in: 0...3, using: &rng))\""
                let comps = (0..<Int.random(in: 0...10, using: &rng)).map { _ -> String in
                    // Half the rules get a literal head, so that the index has something to sort.
                    var c = RandomAASA.component(&rng)
                    if Bool.random(using: &rng) {
                        let head = ["/a", "/ab", "/A", "/b/", "/%41", "/é"].randomElement(using: &rng)!
                        c = c.replacingAll(#""/":""#, with: #""/":"\#(head)"#)
                    }
                    return c
                }
                return #"{"appIDs":[\#(app)],"components":[\#(comps.joined(separator: ","))]}"#
            }
            let food = RandomAASA.food.map { JSONWriter.quoted($0) }.joined(separator: ",")
            let text =
                #"""
                {"applinks":{"substitutionVariables":{"food":[\#(food)]},\#
                "details":[\#(entries.joined(separator: ","))]}}
                """#
            let (indexed, all) = Self.compare(AASADocument.parse(text))
            #expect(indexed.complete && all.complete)
            #expect(indexed.shadowed == all.shadowed, "\(text)")
            #expect(indexed.overlaps == all.overlaps, "\(text)")
            #expect(indexed.catchAll.map(\.rule) == all.catchAll.map(\.rule))
        }
    }

    /// Many teams' rules under distinct paths: the work grows with the number of rules, not its
    /// square. 5,000 such rules fit in a budget that comparing every pair (12.5 million) would
    /// exceed a hundred times over.
    @Test func distinctPathsCostAboutTheNumberOfRules() {
        let document = Self.distinctPaths(rules: 5_000, apps: 20)
        let analysis = RuleAnalyzer.analyze(document, budget: 400_000)
        #expect(analysis.complete)
        let everyPair = RuleAnalyzer.analyze(
            document, matcher: nil, host: "example.com",
            budget: AnalysisBudget(steps: 400_000), pairing: .allPairs)
        #expect(!everyPair.complete, "comparing every pair must not fit this budget, or the test proves nothing")
        #expect(analysis.shadowed.isEmpty && analysis.overlaps.isEmpty)
        // And the index still sees a real overlap among them.
        var withOverlap = document
        withOverlap.applinks?.details?[1].components?.append(ComponentRule(path: "/app0/item7"))
        let found = RuleAnalyzer.analyze(withOverlap, budget: 400_000)
        #expect(found.overlaps.count == 1)
    }

    /// Rules that all may meet (no literal head) are the worst case: the budget counts the pairs
    /// too, so the analysis stops and says so instead of running for minutes.
    @Test func theBudgetBoundsThePairsToo() {
        var details: [DetailsEntry] = []
        for app in 0..<20 {
            let components = (0..<250).map { ComponentRule(path: "*x\(app)-\($0)*") }
            details.append(DetailsEntry(appIDs: ["ABCDE12345.com.app\(app)"], components: components))
        }
        var document = AASADocument()
        document.applinks = AppLinks(details: details)
        let analysis = RuleAnalyzer.analyze(document, budget: 100_000)
        #expect(!analysis.complete)
    }

    @Test func aCallerCanStopTheAnalysis() {
        let document = Self.distinctPaths(rules: 2_000, apps: 10)
        let stopped = RuleAnalyzer.analyze(document, shouldStop: { true })
        #expect(!stopped.complete)
        #expect(RuleAnalyzer.analyze(document, shouldStop: { false }).complete)
    }

    @Test func commonPrefixReadsLiteralHeadsOnly() {
        func prefix(_ pattern: String, caseSensitive: Bool = true) -> String {
            let tokens = PathPatternShape.stripSlashes(PatternSyntax.tokenize(pattern).tokens)
            var alternatives = [tokens]
            if let alt = PathPatternShape.withoutFinalSlashStar(tokens) { alternatives.append(alt) }
            let automaton = Automaton.build(
                alternatives, variables: VariableTable([SubstitutionVariable(name: "v", values: ["ab", "ac"])]),
                caseSensitive: caseSensitive)
            return RuleLanguage.text(automaton.commonPrefix())
        }
        #expect(prefix("/shop/*") == "shop")
        #expect(prefix("/shop/items/?*") == "shop/items/")
        #expect(prefix("/Shop/x") == "shop/x")
        #expect(prefix("/$(v)/x") == "a")
        #expect(prefix("*") == "")
        #expect(prefix("/a*b") == "a")
    }

    static func distinctPaths(rules: Int, apps: Int) -> AASADocument {
        var details: [DetailsEntry] = []
        for app in 0..<apps {
            let components = (0..<(rules / apps)).map { ComponentRule(path: "/app\(app)/item\($0)/*") }
            details.append(DetailsEntry(appIDs: ["ABCDE12345.com.app\(app)"], components: components))
        }
        var document = AASADocument()
        document.applinks = AppLinks(details: details)
        return document
    }
}
