import PropertyBased
import Testing

@testable import AASAModel

/// Issue 26: Dynamic App Links answered as AOSP's code answers them (docs/assetlinks-spec.md,
/// "Matching"): `DalComponentParser`'s own test table, a step-by-step reference port of
/// `PatternMatcher.matchGlobPattern` against the matcher on random patterns, and the cases the
/// outside check found.
@Suite struct AOSPMatchingTests {
    enum Kind { case literal, prefix, glob }

    /// `DalComponentParserTest.parseExpressions`, as AOSP wrote it: the expression, the
    /// `PatternMatcher` type and pattern it becomes, strings that match, strings that do not.
    static let parserTable: [(String, Kind, String, [String], [String])] = [
        ("foobar", .literal, "foobar", ["foobar"], ["foo.bar", #"foo\.bar"#]),
        ("foo.bar", .literal, "foo.bar", ["foo.bar"], ["foobar", #"foo\.bar"#, "foodbar"]),
        ("foo*", .prefix, "foo", ["foo", "foobar", "foo.bar", #"foo\.bar"#], ["fo", "barfoo"]),
        ("foo.*", .prefix, "foo.", ["foo.", "foo.bar", "foo..."], ["foo", "fo.", "foobar"]),
        ("*bar", .glob, ".*bar", ["foobar", "foo.bar", "bar", ".bar"], ["foo", "barfoo", "barfoobar", "abcbar"]),
        ("*.bar", .glob, #".*\.bar"#, [".bar", "foo.bar"], ["bar", "foobar", ".bar.bar", "foo.b.bar"]),
        ("foo*bar", .glob, "foo.*bar", ["foobar", "foo.bar", "foofoobar"], ["foobarbar", "f.bar"]),
        (#"foo\*bar"#, .glob, #"foo\\.*bar"#, [#"foo\bar"#, #"foo\.bar"#, #"foo\foobar"#], ["foobarbar", "f.bar"]),
        ("foo.*bar", .glob, #"foo\..*bar"#, ["foo.bar", "foo.foobar"], ["foobar", "foo.barbar"]),
        ("foo*.bar", .glob, #"foo.*\.bar"#, ["foo.bar", "foobar.bar"], ["foobar", "foo.bar.bar"]),
        (
            "*foo*bar", .glob, ".*foo.*bar", [".foo.bar", "xfoozbar", "foobar", "foo.bar"],
            ["barfoo", "foobbar", "ffoobar"]
        ),
        ("foo?bar", .glob, "foo.bar", ["foo.bar", "foobbar"], ["foobar"]),
        ("foo.?bar", .glob, #"foo\..bar"#, ["foo..bar", "foo.bbar"], ["foobar", "foo.bar"]),
        ("foo?.bar", .glob, #"foo.\.bar"#, ["foo..bar", "fooo.bar"], ["foobar", "foo.bar"]),
        ("?bar", .glob, ".bar", [".bar", "fbar"], ["bar", "foobar"]),
        ("foo?", .glob, "foo.", ["foo.", "foob"], ["foo", "foobar"]),
        ("fo?b*r", .glob, "fo.b.*r", ["foobar", "fo.br", "fobbbbr"], ["foobrr", "fobar"]),
        ("foo*?bar", .glob, "foo.*.bar", ["foo.bar", "foofoo.bar", "foobar.bar"], ["foobar", "foobarbar"]),
        ("^fo+b*r", .glob, "^fo+b.*r", ["^fo+bar", "^fo+br", "^fo+bbbbr"], ["foobar", "fobr"]),
        ("?*bar", .glob, "..*bar", ["bbar", ".bar", "foo.bar"], ["bar"]),
        ("foo?*bar", .glob, "foo..*bar", ["foo.bar", "foodbar", "foofoobar", "foobarbar"], ["foobar", "foo.bar.bar"]),
        (
            "foo?*bar*", .glob, "foo..*bar.*", ["foo.bar", "foodbar", "foo..bar", "foobarbar", "foo.bar.bar.foo"],
            ["foobar", "foo.ba.bar"]
        ),
        ("foo?*bar.", .glob, #"foo..*bar\."#, ["foo.bar.", "foo..bar."], ["foobar.", #"foo.bar\."#]),
        ("foo?*bar.*", .glob, #"foo..*bar\..*"#, ["foo.bar.", "foo..bar.", "foodbar.bar"], ["foobar.", "foo.bar"]),
        ("bar?*", .glob, "bar..*", ["barfoo", "bar."], ["bar", "foobar"]),
        ("foo[a-z]", .literal, "foo[a-z]", ["foo[a-z]"], ["fooa"]),
        ("foo[a-z]+", .literal, "foo[a-z]+", ["foo[a-z]+"], ["foo[a-z]", "foozz"]),
        ("foo[a-z]*", .prefix, "foo[a-z]", ["foo[a-z]", "foo[a-z]bar"], ["foo", "fooz"]),
        ("[a-z]*bar", .glob, "[a-z].*bar", ["[a-z].bar", "[a-z]bar"], ["abar"]),
        ("foo[a-z]?bar", .glob, "foo[a-z].bar", ["foo[a-z].bar", "foo[a-z]bbar"], ["fooz.bar"]),
        ("foo[a-z]?*", .glob, "foo[a-z]..*", ["foo[a-z]bar"], ["foodbar"]),
        ("^fo+[a-z]?*", .glob, "^fo+[a-z]..*", ["^fo+[a-z]bar"], ["foobar", "foabar"]),
        ("fo{2}", .literal, "fo{2}", ["fo{2}"], ["foo"]),
        ("fo{2}+", .literal, "fo{2}+", ["fo{2}+"], ["foo"]),
        ("fo{2}*", .prefix, "fo{2}", ["fo{2}", "fo{2}bar"], ["foobar"]),
        ("fo{2}*bar", .glob, "fo{2}.*bar", ["fo{2}.bar"], ["foo.bar"]),
        ("fo{2}?*", .glob, "fo{2}..*", ["fo{2}.", "fo{2}bar"], ["foobar"]),
    ]

    @Test func dalComponentParsersOwnTable() throws {
        for (expression, kind, filter, matching, nonMatching) in Self.parserTable {
            let pattern = try #require(AndroidPattern(expression))
            let expected: AndroidPattern.Kind =
                switch kind {
                case .literal: .literal
                case .prefix: .prefix
                case .glob: .simpleGlob
                }
            #expect(pattern.kind == expected, "\(expression)")
            #expect(String(decoding: pattern.pattern, as: UTF16.self) == filter, "\(expression)")
            for s in matching { #expect(pattern.matches(Array(s.utf16)), "\(expression) should match \(s)") }
            for s in nonMatching { #expect(!pattern.matches(Array(s.utf16)), "\(expression) should not match \(s)") }
        }
        #expect(AndroidPattern("") == nil, "an empty expression is refused")
    }

    /// The matcher against the reference port, on random expressions over the characters whose
    /// handling differs (wildcards, `.`, `\`) and random subjects.
    @Test func matcherAgreesWithAStepByStepPortOfMatchGlobPattern() async {
        await propertyCheck(count: 2000, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var rng = SplitMix(seed)
            let expression = (0..<Int.random(in: 1...7, using: &rng)).map { _ in
                ["a", "b", "/", "*", "?", ".", "\\", "x"].randomElement(using: &rng)!
            }.joined()
            let subject = (0..<Int.random(in: 0...8, using: &rng)).map { _ in
                ["a", "b", "/", ".", "\\", "x"].randomElement(using: &rng)!
            }.joined()
            let ours = AndroidPattern(expression)?.matches(Array(subject.utf16)) ?? false
            #expect(
                ours == Reference.matches(expression: expression, subject: subject),
                "expression \(expression) subject \(subject)")
        }
    }

    static func decide(_ components: String, _ url: String) throws -> AndroidMatcher.Decision {
        try AssetLinksTests.matcher(components).decide(packageName: "com.example.app", url: url)
    }

    /// The cases of issue 26, each as a device answers it.
    @Test func casesTheSourceSettles() throws {
        // `*?` waits for a literal `.`: /foo*?bar does not match /foobarbar.
        #expect(try Self.decide(#"[{"/":"/foo*?bar"}]"#, "https://example.com/foobarbar") == .noMatch)
        #expect(try Self.decide(#"[{"/":"/foo*?bar"}]"#, "https://example.com/foo.bar") == .open)
        // `\.` in a plain position matches any character.
        #expect(try Self.decide(#"[{"/":"/x?.y"}]"#, "https://example.com/x_by") == .open)
        #expect(try Self.decide(#"[{"/":"/a.b*c"}]"#, "https://example.com/aXbZc") == .open)
        // Without a wildcard the expression is a literal: `.` is a dot.
        #expect(try Self.decide(#"[{"/":"/a.b"}]"#, "https://example.com/aXb") == .noMatch)
        // An invalid escape decodes to U+FFFD and does not fail the match.
        #expect(try Self.decide(#"[{"/":"/é/*"}]"#, "https://example.com/é/%zz") == .open)
        #expect(AndroidURL.decode("/%zz") == Array("/\u{FFFD}\u{0}z".utf16))
        #expect(AndroidURL.decode("/a%4") == Array("/a\u{FFFD}".utf16))
        #expect(AndroidURL.decode("/caf%C3%A9%FF") == Array("/café\u{FFFD}".utf16))
        // An absent path is empty, not `/`.
        #expect(try Self.decide(#"[{"/":"/"}]"#, "https://example.com") == .noMatch)
        #expect(try Self.decide(#"[{"/":"/"}]"#, "https://example.com/") == .open)
        // An absent fragment is null, which no pattern matches; an empty one is "".
        #expect(try Self.decide(##"[{"#":"*"}]"##, "https://example.com/x") == .noMatch)
        #expect(try Self.decide(##"[{"#":"*"}]"##, "https://example.com/x#") == .open)
        // The query: any decoded piece, split on `&`, or on `;` when `&` gives one piece.
        #expect(try Self.decide(#"[{"?":{"b":"2"}}]"#, "https://example.com/x?a=1;b=2") == .open)
        #expect(try Self.decide(#"[{"?":{"b":"2"}}]"#, "https://example.com/x?a=1&c=3;b=2") == .noMatch)
        #expect(try Self.decide(#"[{"?":{"b":"2"}}]"#, "https://example.com/x?a=1%26b=2") == .open)
        #expect(try Self.decide(#"[{"?":{"b":"*"}}]"#, "https://example.com/x") == .noMatch)
        // exclude is read with optBoolean: the string "true" excludes.
        #expect(try Self.decide(#"[{"/":"/x","exclude":"true"},{"/":"*"}]"#, "https://example.com/x") == .exclude)
        #expect(try Self.decide(#"[{"/":"/x","exclude":"yes"},{"/":"*"}]"#, "https://example.com/x") == .open)
        // A missing or empty array: the manifest decides. A rule with no filter never matches.
        #expect(try Self.decide("[]", "https://example.com/x") == .manifest)
        #expect(try Self.decide(#"[{"comments":"nothing"},{"/":"/y"}]"#, "https://example.com/x") == .noMatch)
        #expect(try Self.decide(#"[{"exclude":true},{"/":"*"}]"#, "https://example.com/x") == .open)
    }

    /// An Apple rule with no `/`, `?` or `#` matches every URL; rendered for Android it gets `"/": "*"`,
    /// since a filter group with no filter matches none.
    @Test func aRuleWithoutFiltersIsRenderedToMeanEveryURL() throws {
        let (component, problems) = AndroidRuleForm.convert(.object(["exclude": .bool(true)]))
        #expect(problems.isEmpty)
        #expect(component.objectValue?["/"] == .string("*"))
        let rendered = "[" + JSONWriter().string(component) + #",{"/":"/x"}]"#
        #expect(try Self.decide(rendered, "https://example.com/x") == .exclude)
        #expect(try Self.decide(rendered, "https://example.com") == .exclude)
    }

    /// The linter warns where a device's answer surprises, with stable codes.
    @Test func theLinterWarnsWhereTheDeviceSurprises() {
        func codes(_ components: String) -> Set<String> {
            let json = """
                [{"relation":["delegate_permission/common.handle_all_urls"],"target":{"namespace":"android_app",\
                "package_name":"com.example.app","sha256_cert_fingerprints":["\(AssetLinksTests.fingerprint)"]},\
                "relation_extensions":{"delegate_permission/common.handle_all_urls":\
                {"dynamic_app_link_components":\(components)}}}]
                """
            return Set(AssetLinksValidator.validate(Array(json.utf8)).map(\.code.rawValue))
        }
        #expect(codes(#"[{"/":"/a.b*c"}]"#).contains("L063"))
        #expect(!codes(#"[{"/":"/a.b*"}]"#).contains("L063"), "a prefix pattern compares `.` as a dot")
        #expect(!codes(#"[{"/":"/a.b"}]"#).contains("L063"), "a literal pattern compares `.` as a dot")
        #expect(codes(#"[{"/":"/foo*?bar"}]"#).contains("L064"))
        #expect(codes(#"[{"/":"/foo**"}]"#).contains("L064"))
        #expect(!codes(#"[{"/":"/foo?*bar"}]"#).contains("L064"))
        #expect(codes(##"[{"#":"top"}]"##).contains("L065"))
        #expect(codes(#"[{"?":{"dl":"*"}}]"#).contains("L062"), "the `?` glue is a reading")
        #expect(codes(#"[{"/":"/products/*"}]"#).isEmpty)
    }

    /// Java's `String.split` as `UriRelativeFilter.matchQuery` uses it.
    @Test func querySplitsAsJavaSplits() {
        func pieces(_ s: String) -> [String] {
            AndroidURL.javaSplit(Array(s.utf16), on: UInt16(UInt8(ascii: "&"))).map {
                String(decoding: $0, as: UTF16.self)
            }
        }
        #expect(pieces("a=1&b=2") == ["a=1", "b=2"])
        #expect(pieces("a=1&") == ["a=1"])
        #expect(pieces("&a=1") == ["", "a=1"])
        #expect(pieces("&&") == [])
        #expect(pieces("") == [""])
        #expect(AndroidURL("https://example.com/x?a=1&").queryPieces == [Array("a=1&".utf16)])
    }
}

/// A reference written from the AOSP sources line by line, over Java-like `char` indexing:
/// `DalComponentParser.parseMatchingExpression` and `PatternMatcher.matchPattern`.
enum Reference {
    static func matches(expression: String, subject: String) -> Bool {
        let e = Array(expression.utf16)
        var wildcardCount = 0
        for ch in e where ch == 0x3F || ch == 0x2A { wildcardCount += 1 }
        let m = Array(subject.utf16)
        if wildcardCount == 0 { return m == e }
        if wildcardCount == 1 && e.last == 0x2A { return m.starts(with: e.dropLast()) }
        var pattern: [UInt16] = []
        for ch in e {
            switch ch {
            case 0x2A: pattern += [0x2E, 0x2A]
            case 0x3F: pattern.append(0x2E)
            case 0x2E: pattern += [0x5C, 0x2E]
            case 0x5C: pattern += [0x5C, 0x5C]
            default: pattern.append(ch)
            }
        }
        return matchGlobPattern(pattern, m)
    }

    static func matchGlobPattern(_ pattern: [UInt16], _ match: [UInt16]) -> Bool {
        let patternLength = pattern.count
        if patternLength <= 0 { return match.count <= 0 }
        let matchLength = match.count
        var ip = 0
        var im = 0
        var nextChar = pattern[0]
        func charAt(_ i: Int) -> UInt16 { i < patternLength ? pattern[i] : 0 }
        while ip < patternLength && im < matchLength {
            var c = nextChar
            ip += 1
            nextChar = charAt(ip)
            let escaped = c == 0x5C
            if escaped {
                c = nextChar
                ip += 1
                nextChar = charAt(ip)
            }
            if nextChar == 0x2A {
                if !escaped && c == 0x2E {
                    if ip >= patternLength - 1 { return true }
                    ip += 1
                    nextChar = pattern[ip]
                    if nextChar == 0x5C {
                        ip += 1
                        nextChar = charAt(ip)
                    }
                    repeat {
                        if match[im] == nextChar { break }
                        im += 1
                    } while im < matchLength
                    if im == matchLength { return false }
                    ip += 1
                    nextChar = charAt(ip)
                    im += 1
                } else {
                    repeat {
                        if match[im] != c { break }
                        im += 1
                    } while im < matchLength
                    ip += 1
                    nextChar = charAt(ip)
                }
            } else {
                if c != 0x2E && match[im] != c { return false }
                im += 1
            }
        }
        if ip >= patternLength && im >= matchLength { return true }
        if ip == patternLength - 2 && pattern[ip] == 0x2E && pattern[ip + 1] == 0x2A { return true }
        return false
    }
}
