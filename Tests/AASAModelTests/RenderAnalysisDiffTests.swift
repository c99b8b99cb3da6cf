import AASAModel
import Foundation
import Testing

@Suite struct RendererTests {
    let doc = AASADocument.parse(
        #"""
        {"webcredentials":{"apps":["ABCDE12345.com.a"]},
         "applinks":{"details":[{"components":[{"comment":"c","exclude":true,"/":"/x/*"},{"/":"/buy/*"}],
                                 "appIDs":["ABCDE12345.com.a","ABCDE12345.com.b"]}],
                     "defaults":{"caseSensitive":true}}}
        """#)

    @Test func canonicalKeyOrder() {
        let text = String(decoding: AASARenderer.render(doc), as: UTF8.self)
        #expect(
            text
                == #"""
                {"applinks":{"defaults":{"caseSensitive":true},"details":[{"appIDs":["ABCDE12345.com.a",\#
                "ABCDE12345.com.b"],"components":[{"/":"/x/*","exclude":true,"comment":"c"},{"/":"/buy/*"}]}]},\#
                "webcredentials":{"apps":["ABCDE12345.com.a"]}}
                """#
        )
    }

    @Test func prettyForm() {
        let text = String(
            decoding: AASARenderer.render(.parse(#"{"applinks":{"details":[]}}"#), options: .init(pretty: true)),
            as: UTF8.self)
        #expect(text == "{\n  \"applinks\": {\n    \"details\": []\n  }\n}\n")
    }

    @Test func legacyFormSplitsEntriesAndWritesPaths() {
        let text = String(decoding: AASARenderer.render(doc, options: .init(legacy: true)), as: UTF8.self)
        #expect(text.contains(#""apps":[]"#))
        #expect(
            text.contains(
                #"""
                {"appID":"ABCDE12345.com.a","appIDs":["ABCDE12345.com.a"],"components":[{"/":"/x/*",\#
                "exclude":true,"comment":"c"},{"/":"/buy/*"}],"paths":["NOT /x/*","/buy/*"]}
                """#
            ))
        #expect(text.contains(#""appID":"ABCDE12345.com.b""#))
        #expect(AASARenderer.legacyLimitations(doc).isEmpty)
    }

    @Test func legacyFormSaysWhatItCannotExpress() {
        let d = AASADocument.parse(
            #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.a"],"components":[{"/":"/a","?":{"q":"1"}}]}]}}"#)
        #expect(AASARenderer.legacyLimitations(d).first?.contains("query") == true)
        #expect(
            !String(decoding: AASARenderer.render(d, options: .init(legacy: true)), as: UTF8.self).contains("paths"))
    }

    @Test func codableThroughFoundation() throws {
        let data = try JSONEncoder().encode(doc)
        let back = try JSONDecoder().decode(AASADocument.self, from: data)
        #expect(AASAMatcher(back).resolve(url: "https://e.com/buy/1").appID == "ABCDE12345.com.a")
        #expect(back.webcredentials?.apps == ["ABCDE12345.com.a"])
    }
}

@Suite struct AnalysisTests {
    func analyze(_ text: String) -> RuleAnalysis { RuleAnalyzer.analyze(.parse(text)) }

    /// Found by libFuzzer (`Fuzz/regressions/star-run-timeout.json`): a run of 150 `*` made the
    /// overlap analysis take seconds. A run of stars is one star; the analysis of the fuzzer's
    /// file must say exactly what it says of the same file with each run collapsed.
    @Test func starRunsAnalyseLikeOneStar() throws {
        var root = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
            root.deleteLastPathComponent()
        }
        let text = try String(
            contentsOf: root.appendingPathComponent("Fuzz/regressions/star-run-timeout.json"), encoding: .utf8)
        let collapsed = text.replacingOccurrences(of: #"\*+"#, with: "*", options: .regularExpression)
        #expect(collapsed != text)
        let a = analyze(text)
        let b = analyze(collapsed)
        #expect(a.shadowed.map(\.rule.index) == b.shadowed.map(\.rule.index))
        #expect(a.diagnostics.map(\.code) == b.diagnostics.map(\.code))
        #expect(a.overlaps.count == b.overlaps.count)
    }

    /// `*a` followed by many `?` makes every inclusion question explore an exponential number of
    /// states, each up to its own bound, and a file can ask many such questions. The shared budget
    /// stops the analysis, and the report says it is incomplete, instead of costing seconds per lint
    /// or per write.
    @Test func analysisStopsAtItsBudgetAndSaysSo() throws {
        var root = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
            root.deleteLastPathComponent()
        }
        let text = try String(
            contentsOf: root.appendingPathComponent("Fuzz/regressions/analysis-budget.json"), encoding: .utf8)
        let document = try AASADocument(json: text)
        let small = RuleAnalyzer.analyze(document, budget: 1_000_000)
        #expect(!small.complete)
        #expect(small.diagnostics.last?.code == .analysisIncomplete)
        // A budget is a budget: a larger one finds at least what a smaller one found.
        let larger = RuleAnalyzer.analyze(document, budget: 2_000_000)
        #expect(Set(larger.shadowed.map(\.rule.index)).isSuperset(of: small.shadowed.map(\.rule.index)))
        // An ordinary file stays far inside the default budget.
        let ordinary = analyze(
            #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.a"],"components":[{"/":"/a/*"},{"/":"/a/??"}]}]}}"#)
        #expect(ordinary.complete)
    }

    @Test func catchAllShadowsLaterRules() {
        let a = analyze(
            #"""
            {"applinks":{"details":[{"appIDs":["ABCDE12345.com.a"],"components":[{"comment":"everything"},\#
            {"/":"/never/*"}]}]}}
            """#
        )
        #expect(a.catchAll.map(\.rule.index) == [0])
        #expect(a.shadowed.map(\.rule.index) == [1])
        #expect(a.shadowed.first?.shadowedBy.index == 0)
    }

    @Test func narrowerLaterRuleIsShadowed() {
        let a = analyze(
            #"""
            {"applinks":{"details":[{"appIDs":["ABCDE12345.com.a"],"components":[{"/":"/a/*"},\#
            {"/":"/a/private/*","exclude":true},{"/":"/b/*"},{"/":"/a/??"}]}]}}
            """#
        )
        #expect(a.shadowed.map(\.rule.index) == [1, 3])
        #expect(a.shadowed.first?.ruleExcludes == true)
        #expect(a.diagnostics.contains { $0.message.contains("exclusion never applies") })
    }

    @Test func notShadowedWhenOnlyPartlyCovered() {
        let a = analyze(
            #"""
            {"applinks":{"details":[{"appIDs":["ABCDE12345.com.a"],"components":[{"/":"/a/*","?":{"x":"1"}},\#
            {"/":"/a/b"},{"/":"/c/*","caseSensitive":false},{"/":"/C/D"},{"/":"/$(digit)"},{"/":"/1"},\#
            {"/":"/2?"}]}]}}
            """#
        )
        #expect(a.shadowed.map(\.rule.index) == [3, 5])
    }

    /// Found by the property test: an empty path pattern (the root) was taken for "any path".
    @Test func rootPatternShadowsOnlyTheRoot() {
        let a = analyze(
            #"""
            {"applinks":{"details":[{"appIDs":["ABCDE12345.com.a"],"components":[{"/":"/"},{"/":"%20",\#
            "caseSensitive":false},{"/":"//"}]}]}}
            """#
        )
        #expect(a.shadowed.map(\.rule.index) == [2])
        #expect(a.catchAll.isEmpty)
    }

    @Test func queryAndFragmentInclusion() {
        let a = analyze(
            ##"""
            {"applinks":{"details":[{"appIDs":["ABCDE12345.com.a"],"components":[{"/":"/s","?":{"q":"*"}},\##
            {"/":"/s","?":{"q":"x","p":"1"}},{"#":"top"},{"/":"/t","#":"top"},{"/":"/u","?":{"q":"a*"}},\##
            {"/":"/u","?":{"q":"b"}}]}]}}
            """##
        )
        #expect(a.shadowed.map(\.rule.index) == [1, 3])
    }

    @Test func overlapsAcrossAppsCarryAWitnessURL() throws {
        let a = analyze(
            #"""
            {"applinks":{"details":[
              {"appIDs":["ABCDE12345.com.shop"],"components":[{"/":"/shop/*"}]},
              {"appIDs":["ABCDE12345.com.cart"],"components":[{"/":"/shop/cart/*"},{"/":"/other/*"}]}]}}
            """#)
        let overlap = try #require(a.overlaps.first)
        #expect(a.overlaps.count == 1)
        #expect(overlap.first.detailsIndex == 0 && overlap.second.detailsIndex == 1)
        #expect(overlap.opener == "ABCDE12345.com.shop")
        #expect(overlap.secondAlwaysLoses)
        #expect(overlap.exampleURL.hasPrefix("https://example.com/shop/cart"))
    }

    @Test func excludeRulesAreNotConflicts() {
        let a = analyze(
            #"""
            {"applinks":{"details":[
              {"appIDs":["ABCDE12345.com.a"],"components":[{"/":"/x/*","exclude":true},{"/":"/a/*"}]},
              {"appIDs":["ABCDE12345.com.b"],"components":[{"/":"/x/*"},{"/":"/b/*"}]}]}}
            """#)
        #expect(a.overlaps.isEmpty)
    }

    @Test func disjointQueriesDoNotOverlap() {
        let a = analyze(
            #"""
            {"applinks":{"details":[
              {"appIDs":["ABCDE12345.com.a"],"components":[{"/":"/p","?":{"v":"1"}}]},
              {"appIDs":["ABCDE12345.com.b"],"components":[{"/":"/p","?":{"v":"2"}},{"/":"/p","?":{"w":"2"}}]}]}}
            """#)
        #expect(a.overlaps.map(\.second.index) == [1])
        #expect(a.overlaps.first?.exampleURL == "https://example.com/p?v=1&w=2")
    }
}

@Suite struct DiffTests {
    @Test func reportsRulesServicesAndOpenerChanges() {
        let old = AASADocument.parse(
            #"""
            {"webcredentials":{"apps":["ABCDE12345.com.a"]},\#
            "applinks":{"details":[{"appIDs":["ABCDE12345.com.a"],"components":[{"/":"/buy/*"},{"/":"/help/*"}]},\#
            {"appIDs":["ABCDE12345.com.b"],"components":[{"/":"/blog/*"}]}]}}
            """#
        )
        let new = AASADocument.parse(
            #"""
            {"applinks":{"details":[{"appIDs":["ABCDE12345.com.a"],"components":[{"/":"/buy/*"},{"/":"/help/*",\#
            "exclude":true}]},{"appIDs":["ABCDE12345.com.c"],"components":[{"/":"/help/*"}]}]}}
            """#
        )
        let diff = DocumentDiff(from: old, to: new)
        #expect(diff.appsAdded == ["ABCDE12345.com.c"])
        #expect(diff.appsRemoved == ["ABCDE12345.com.b"])
        let a = diff.rules.first { $0.appID == "ABCDE12345.com.a" }
        #expect(a?.removed.map(\.text) == [#"{"/":"/help/*"}"#])
        #expect(a?.added.map(\.text) == [#"{"/":"/help/*","exclude":true}"#])
        #expect(diff.services.first?.removed == ["ABCDE12345.com.a"])
        #expect(
            diff.openerChanges.contains {
                $0.url == "https://example.com/help" && $0.before == "ABCDE12345.com.a"
                    && $0.after == "ABCDE12345.com.c"
            })
        #expect(
            diff.openerChanges.contains {
                $0.url == "https://example.com/blog" && $0.before == "ABCDE12345.com.b" && $0.after == nil
            })
        #expect(!diff.openerChanges.contains { $0.url.contains("/buy") })
    }

    @Test func equivalentFormsHaveNoDiff() {
        let dictionary = AASADocument.parse(
            #"{"applinks":{"apps":[],"details":{"ABCDE12345.com.a":{"paths":["/x"]}}}}"#)
        let array = AASADocument.parse(
            #"{"applinks":{"apps":[],"details":[{"appID":"ABCDE12345.com.a","paths":["/x"]}]}}"#)
        #expect(DocumentDiff(from: dictionary, to: array).isEmpty)
    }

    @Test func defaultsChangesShowPerRule() {
        let old = AASADocument.parse(
            #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.a"],"components":[{"/":"/Buy/*"}]}]}}"#)
        let new = AASADocument.parse(
            #"""
            {"applinks":{"defaults":{"caseSensitive":false},"details":[{"appIDs":["ABCDE12345.com.a"],\#
            "components":[{"/":"/Buy/*"}]}]}}
            """#
        )
        let diff = DocumentDiff(from: old, to: new)
        #expect(diff.settings.count == 1)
        #expect(diff.rules.first?.added.first?.text.contains("caseSensitive") == true)
        #expect(
            diff.openerChanges.contains {
                $0.url.hasPrefix("https://example.com/BUY") && $0.before == nil && $0.after == "ABCDE12345.com.a"
            })
    }
}
