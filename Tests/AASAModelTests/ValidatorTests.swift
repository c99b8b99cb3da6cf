import AASAModel
import Foundation
import Testing

@Suite struct ValidatorTests {
    func lint(_ text: String) -> LintReport { AASALinter.lint(Array(text.utf8)) }

    func codes(_ text: String) -> Set<DiagnosticCode> { Set(lint(text).diagnostics.map(\.code)) }

    func doc(_ components: String, extra: String = "") -> String {
        #"{"applinks":{\#(extra)"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":\#(components)}]}}"#
    }

    /// The public corpus's validation documents: each must get an error or a warning, and the clean
    /// one nothing at all.
    @Test func publicValidationDocuments() throws {
        let cases = try SharedData.json("conformance/cases.json").objectValue?["validation"]?.arrayValue ?? []
        #expect(cases.count == 13)
        for c in cases {
            let o = try #require(c.objectValue)
            let name = o["name"]?.stringValue ?? "?"
            let expected = o["expectCodes"]?.arrayValue ?? []
            let report = AASALinter.lint(JSONWriter().bytes(o["aasa"]!))
            if expected.isEmpty {
                #expect(report.diagnostics.isEmpty, "\(name): \(report.diagnostics)")
            } else {
                #expect(!report.diagnostics.isEmpty, "\(name) should be reported")
            }
        }
    }

    @Test func appIDShapes() {
        #expect(AppID.isValid("ABCDE12345.com.example.app"))
        #expect(AppID.isValid("ABCDE12345.com.example-app.Clip"))
        #expect(!AppID.isValid("ABCDE1234.com.example.app"), "9-character prefix")
        #expect(!AppID.isValid("ABCDE12345"), "bare Team ID")
        #expect(!AppID.isValid("ABCDE12345."), "no bundle ID")
        #expect(!AppID.isValid("com.example.app"))
        #expect(!AppID.isValid("ABCDE12345.com.example_app"), "underscore")
        #expect(!AppID.isValid("ABCDE12345.com..app"))
        #expect(!AppID.isValid(""))
        #expect(AppID.problem("AF29P2AX2D")!.contains("bare Team ID"))
        #expect(
            codes(doc(#"[{"/":"/a"}]"#).replacingOccurrences(of: "ABCDE12345", with: "abcde12345")) == [
                .lowercaseTeamID
            ])
    }

    @Test func whatValidationMustCatch() {
        #expect(codes(doc(#"[{"?":{"a":"1","flag":true}}]"#)).contains(.queryValueNotString))
        #expect(codes(doc(#"[{"/":"/$(nope)"}]"#)).contains(.undefinedVariable))
        #expect(codes(doc(#"[{"/":"/$(oops"}]"#)).contains(.malformedVariable))
        #expect(codes(doc(#"[{"/":"/$()"}]"#)).contains(.malformedVariable))
        #expect(
            codes(doc(#"[{"/":"/$(a)"}]"#, extra: #""substitutionVariables":{"a":["$(b)"],"b":["x"]},"#)).contains(
                .variableValueReferencesVariable))
        #expect(
            codes(doc(#"[{"/":"/$(lang)"}]"#, extra: #""substitutionVariables":{"lang":["xx"]},"#)).contains(
                .variableRedefinesPredefined))
        #expect(
            codes(doc(#"[{"/":"/$(v)"}]"#, extra: #""substitutionVariables":{"v":[]},"#)).contains(
                .variableWithoutValues))
        #expect(codes(doc(#"[{"/":"/a","exclude":"yes"}]"#)).contains(.wrongType))
        #expect(
            codes(
                #"""
                {"applinks":{"details":[{"appIDs":["ABCDE12345.com.a"],"components":[{"/":"/a"}]},\#
                {"appIDs":["ABCDE12345.com.a"],"components":[{"/":"/b"}]}]}}
                """#
            ).contains(.appInSeveralEntries))
        #expect(
            codes(
                #"""
                {"applinks":{"details":[{"appID":"ABCDE12345.com.b","appIDs":["ABCDE12345.com.a"],\#
                "components":[{"/":"/a"}]}]}}
                """#
            ).contains(.appIDDisagreesWithAppIDs))
        #expect(codes(#"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.a"]}]}}"#).contains(.entryWithoutRules))
        #expect(codes(#"{"applinks":{"details":[]}}"#) == [.emptyDetails])
        #expect(codes(#"{}"#) == [.noService])
        #expect(
            codes(
                #"""
                {"applinks":{"apps":["ABCDE12345.com.a"],"details":[{"appIDs":["ABCDE12345.com.a"],\#
                "components":[{"/":"/a"}]}]}}
                """#
            ).contains(.legacyAppsNotEmpty))
        #expect(codes(doc(#"[{"/":"NOT /a"}]"#)).contains(.notInsideComponents))
        #expect(codes(doc(#"[{"/":"/a","percentEncoded":false}]"#)).contains(.percentEncodedFalse))
        #expect(
            codes(doc(#"[{"/":"/a","?":{"q":"x"},"caseSensitive":false}]"#)).contains(.caseInsensitiveQueryOrFragment))
        #expect(codes(doc(#"[{"/":"/$(alpha)$(alpha)"}]"#)).contains(.variableUsedTwice))
        #expect(codes(doc(#"[{"/":"/search?q=*"}]"#)).contains(.pathPatternLooksLikeQuery))
        #expect(codes(doc(#"[{"/":"https://example.com/a"}]"#)).contains(.pathPatternIsURL))
        #expect(codes(doc(#"[{"/":"/a/**"}]"#)).contains(.redundantStars))
        #expect(
            codes(
                doc(#"[{"/":"/a"}]"#).replacingOccurrences(
                    of: #"["ABCDE12345.com.example.app"]"#,
                    with: #"["ABCDE12345.com.example.app","ABCDE12345.com.example.app"]"#)
            ).contains(.duplicateAppID))
        #expect(codes(#"{"webcredentials":{"apps":["com.example.app"]}}"#) == [.invalidAppID])
        #expect(codes(doc(#"[{"/":"/a"}]"#)).isEmpty, "a clean document is silent")
    }

    @Test func errorsNameTheFieldAndTheRule() {
        let report = lint(doc(#"[{"/":"/ok"},{"?":{"id":5}}]"#))
        let error = try! #require(report.errors.first)
        #expect(error.code == .queryValueNotString)
        #expect(error.path.description == "/applinks/details/0/components/1/?/id")
        #expect(error.message.contains("must be a string"))
    }

    @Test func pathsThatDisagreeWithComponentsAreFound() {
        let report = lint(
            #"""
            {"applinks":{"details":[{"appID":"ABCDE12345.com.a","appIDs":["ABCDE12345.com.a"],\#
            "components":[{"/":"/buy/*"}],"paths":["/buy/*","/sell/*"]}]}}
            """#
        )
        let w = report.warnings.first { $0.code == .pathsDisagreeWithComponents }
        #expect(w?.message.contains("/sell") == true, "\(report.warnings)")
        let agreeing = lint(
            #"""
            {"applinks":{"details":[{"appID":"ABCDE12345.com.a","appIDs":["ABCDE12345.com.a"],\#
            "components":[{"/":"/buy/*"},{"/":"/x","exclude":true}],"paths":["/buy/*","NOT /x"]}]}}
            """#
        )
        #expect(!agreeing.warnings.contains { $0.code == .pathsDisagreeWithComponents })
    }

    @Test func sizeLimitCountsTheServedBytes() {
        let rules = (0..<3_000).map { #"{"/":"/section-\#($0)/*","comment":"rule number \#($0)"}"# }.joined(
            separator: ",")
        let big = doc("[\(rules)]")
        #expect(big.utf8.count > 128 * 1024)
        #expect(
            AASALinter.lint(Array(big.utf8), options: .init(analyzeRules: false)).errors.map(\.code) == [.fileTooLarge])
    }
}
