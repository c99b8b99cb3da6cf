import AASAModel
import Testing

@Suite struct ParserTests {
    func codes(_ text: String) -> [String] {
        AASAParser.parse(text).diagnostics.map(\.code.rawValue)
    }

    @Test func keepsUnknownKeysAndReportsThem() {
        let parsed = AASAParser.parse(
            #"""
            {"applinks":{"details":[{"appIDs":["ABCDE12345.com.a"],"components":[{"/":"/a","casesensitive":false,\#
            "x-team":"web"}]}]},"x-owner":"me"}
            """#
        )
        let doc = try! #require(parsed.document)
        #expect(doc.extra["x-owner"] == .string("me"))
        let component = doc.applinks!.details![0].components![0]
        #expect(component.extra["casesensitive"] == .bool(false))
        #expect(component.caseSensitive == nil, "a misspelled key does nothing")
        #expect(
            parsed.diagnostics.contains {
                $0.code == .nearMissKey && $0.path.description == "/applinks/details/0/components/0/casesensitive"
            })
        #expect(parsed.diagnostics.contains { $0.code == .unknownKey && $0.path.description == "/x-owner" })
        let again = AASAParser.parse(AASARenderer.render(doc)).document
        #expect(again == doc, "unknown keys survive a round trip")
    }

    @Test func wrongTypesAreErrorsWithPaths() {
        let parsed = AASAParser.parse(
            #"{"applinks":{"details":[{"appID":["ABCDE12345.com.a"],"components":[{"/":"/a","exclude":"true"}]}]}}"#)
        let errors = parsed.diagnostics.filter { $0.severity == .error }
        #expect(
            errors.map(\.path.description) == ["/applinks/details/0/appID", "/applinks/details/0/components/0/exclude"])
        #expect(errors[1].message.contains("without quotes"))
    }

    @Test func obsoleteDictionaryDetailsAreReadAndWarned() {
        let parsed = AASAParser.parse(#"{"applinks":{"apps":[],"details":{"ABCDE12345.com.a":{"paths":["/x"]}}}}"#)
        #expect(parsed.diagnostics.map(\.code) == [.detailsAsDictionary])
        let doc = parsed.document!
        #expect(doc.applinks?.details?.first?.appID == "ABCDE12345.com.a")
        #expect(
            JSONWriter().string(doc.jsonValue)
                == #"{"applinks":{"apps":[],"details":{"ABCDE12345.com.a":{"paths":["/x"]}}}}"#)
        #expect(
            String(decoding: AASARenderer.render(doc), as: UTF8.self)
                == #"{"applinks":{"apps":[],"details":[{"appID":"ABCDE12345.com.a","paths":["/x"]}]}}"#)
    }

    @Test(arguments: [
        ("", "E001", "empty"),
        ("[]", "E003", "a JSON object"),
        ("\"x\"", "E003", "a JSON object"),
        ("{\"a\":1,}", "E001", "trailing comma"),
        ("{\"a\":[1,]}", "E001", "trailing comma"),
        ("{\"a\":1 // c\n}", "E001", "comments"),
        ("{'a':1}", "E001", "single quotes"),
        ("{\u{201C}a\u{201D}:1}", "E001", "typographic quote"),
        ("{\"a\":\"x\ny\"}", "E001", "line break inside a string"),
        ("{\"a\":01}", "E001", "leading zeros"),
        ("{\"a\":\"\\ud800\"}", "E001", "surrogate"),
        ("{\"a\":\"\\q\"}", "E001", "invalid escape"),
        ("{\"a\":1}}", "E001", "after the end"),
        ("{\"a\" 1}", "E001", "':'"),
        ("{\"a\":1 \"b\":2}", "E001", "missing comma"),
    ])
    func syntaxErrorsSayWhatIsWrong(_ input: String, _ code: String, _ words: String) {
        let d = AASAParser.parse(input).diagnostics
        #expect(d.first?.code.rawValue == code)
        #expect(d.first?.message.contains(words) == true, "\(d.first?.message ?? "nothing")")
    }

    @Test func errorsCarryLineAndColumn() throws {
        do {
            _ = try JSONParser.parse("{\n  \"a\": [1,\n  ]\n}")
            Issue.record("should fail")
        } catch {
            #expect(error.line == 3)
            #expect(error.column == 3)
            #expect(error.path.description == "/a")
        }
    }

    @Test func hostileInputBecomesDiagnostics() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(codes(deep) == ["E005"])
        let deepObject = String(repeating: "{\"a\":", count: 5_000) + "1" + String(repeating: "}", count: 5_000)
        #expect(codes(deepObject) == ["E005"])
        #expect(AASAParser.parse([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]).diagnostics.first?.code == .notUTF8)
        #expect(
            AASAParser.parse([0x7B, 0x22, 0xC0, 0xAF, 0x22, 0x3A, 0x31, 0x7D]).diagnostics.first?.code == .notUTF8,
            "overlong")
        #expect(AASAParser.parse([0x30, 0x82, 0x01, 0x00]).diagnostics.first?.code == .signedCMS)
        let huge =
            "{\"applinks\":{\"details\":[{\"appIDs\":[\"ABCDE12345.com.a\"],\"components\":[{\"/\":\""
            + String(repeating: "a*", count: 200_000) + "\"}]}]}}"
        let report = AASALinter.lint(Array(huge.utf8), options: .init(analyzeRules: false))
        #expect(report.errors.map(\.code) == [.fileTooLarge])
    }

    @Test func byteOrderMarkAndDuplicateKeysAreWarnings() {
        let parsed = AASAParser.parse(
            [0xEF, 0xBB, 0xBF]
                + Array(#"{"webcredentials":{"apps":[]},"webcredentials":{"apps":["ABCDE12345.com.a"]}}"#.utf8))
        #expect(parsed.diagnostics.map(\.code) == [.byteOrderMark, .duplicateKey])
        #expect(parsed.document?.webcredentials?.apps == ["ABCDE12345.com.a"], "the last duplicate counts")
    }

    @Test func numbersKeepTheirLexeme() throws {
        let value = try JSONParser.parse(#"{"a":[1.0,1e3,-0,12345678901234567890]}"#).value
        #expect(JSONWriter().string(value) == #"{"a":[1.0,1e3,-0,12345678901234567890]}"#)
    }

    @Test func stringsRoundTripWithEscapes() throws {
        let text = #"{"s":"a\"b\\c\n\t\u0001é😀/"}"#
        let value = try JSONParser.parse(text).value
        #expect(value.objectValue?["s"] == .string("a\"b\\c\n\t\u{01}é😀/"))
        #expect(try JSONParser.parse(JSONWriter().string(value)).value == value)
        #expect(try JSONParser.parse(#""\ud83d\ude00""#).value == .string("😀"))
    }

    @Test func codableGoesThroughTheModel() throws {
        let doc = AASADocument.parse(
            #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.a"],"components":[{"/":"/a","?":{"q":"*"}}]}]}}"#)
        let value = try JSONValue(json: AASARenderer.render(doc))
        #expect(AASAParser.read(value).document == doc)
    }

    @Test func punycodeRoundTrips() throws {
        #expect(Punycode.encode("bücher") == "bcher-kva")
        #expect(Punycode.decode("bcher-kva") == "bücher")
        #expect(Punycode.encode("münchen") == "mnchen-3ya")
        #expect(try HostName.normalized("Bücher.Example.") == "xn--bcher-kva.example")
        #expect(HostName.unicode("xn--bcher-kva.example") == "bücher.example")
        #expect(throws: HostName.Problem.self) { try HostName.normalized("a..b") }
        #expect(throws: HostName.Problem.self) { try HostName.normalized("../etc") }
        #expect(throws: HostName.Problem.self) { try HostName.normalized("a/b.com") }
        #expect(throws: HostName.Problem.self) { try HostName.normalized("xn--zz.com") == "" }
    }

    /// Issue 49: a string's escapes are collected into one growing buffer; what it decodes to is
    /// the same, runs between escapes included, for every kind of escape.
    @Test func escapesDecodeWithTheRunsBetweenThem() throws {
        let cases: [(String, String)] = [
            (#""a\u00e9b\ud83d\ude00c\n\"\\\/\t""#, "a\u{e9}b\u{1F600}c\n\"\\/\t"),
            (#""\ud83d\ude00\ud83d\ude00""#, "\u{1F600}\u{1F600}"),
            (#""élan \u0041 ünd""#, "élan A ünd"),
            (#""\b\f\r""#, "\u{08}\u{0C}\r"),
        ]
        for (json, expected) in cases {
            #expect(try JSONParser.parse(Array(json.utf8)).value == .string(expected), "\(json)")
        }
        let many = "\"" + String(repeating: #"x\udbf6\udd5a"#, count: 10_000) + "\""
        let decoded = try JSONParser.parse(Array(many.utf8)).value
        #expect(decoded == .string(String(repeating: "x\u{10D95A}", count: 10_000)))
    }
}

extension JSONValue {
    init(json bytes: [UInt8]) throws {
        self = try JSONParser.parse(bytes).value
    }
}
