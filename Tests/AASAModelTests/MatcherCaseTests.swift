import AASAModel
import Testing

/// One app, one URL, one expected decision, and why it holds. Components are given as the JSON of
/// the `components` array of a single entry for app A; `extra` is spliced into `applinks`.
struct MatcherCase: Sendable, CustomTestStringConvertible {
    var components: String
    var url: String
    var expect: Decision
    var reason: String
    var extra: String = ""

    var testDescription: String { "\(components) \(url) → \(expect.rawValue): \(reason)" }

    var document: AASADocument {
        let prefix = extra.isEmpty ? "" : extra + ","
        return .parse(
            #"{"applinks":{\#(prefix)"details":[{"appIDs":["ABCDE12345.com.example.a"],"components":\#(components)}]}}"#
        )
    }
}

private func rule(_ components: String, _ url: String, _ expect: Decision, _ reason: String, extra: String = "")
    -> MatcherCase
{
    MatcherCase(
        components: components, url: url.hasPrefix("http") ? url : "https://example.com" + url, expect: expect,
        reason: reason, extra: extra)
}

let food = #""substitutionVariables":{"food":["burrito","shawarma","sushi"],"kind":["a*z"],"empty":[""]}"#

/// Apple's documented examples (../shared/aasa-spec.md, "Worked examples") and our own edge cases.
let matcherCases: [MatcherCase] = [
    // Worked examples of the spec.
    rule(#"[{"/":"/videos/wwdc/2015/*"}]"#, "/videos/wwdc/2015/s1", .match, "literal prefix then star"),
    rule(#"[{"/":"/videos/wwdc/2015/*"}]"#, "/videos/wwdc/2015/a/b", .match, "* crosses /"),
    rule(#"[{"/":"/videos/wwdc/2015/*"}]"#, "/videos/wwdc/2016/s1", .noMatch, "literal mismatch"),
    rule(#"[{"/":"/buy/*"}]"#, "/buy", .match, "/x/* also matches /x"),
    rule(#"[{"/":"/buy/*"}]"#, "/buyer", .noMatch, "/x/* does not match a sibling with a longer name"),
    rule(#"[{"/":"/wwdc/news/"}]"#, "/wwdc/news", .match, "trailing slash of the pattern is ignored"),
    rule(#"[{"/":"/buy"}]"#, "/buy/", .match, "trailing slash of the URL is ignored"),
    rule(#"[{"/":"/a/*/c"}]"#, "/a/c", .noMatch, "a middle star does not remove its slashes"),
    rule(#"[{"/":"/id/????"}]"#, "/id/481", .noMatch, "? is exactly one character; no slash is appended"),
    rule(#"[{"/":"abc"}]"#, "/abc", .match, "the leading slash is optional"),
    rule(#"[{"/":"abc"}]"#, "/xabc", .noMatch, "no implicit leading star"),
    rule(#"[{"/":"/"}]"#, "https://example.com", .match, "an empty path is /"),
    rule(#"[{"/":"/taco/*","?":{"cheese":"?*"}}]"#, "/taco/1?cheese=cheddar", .match, "query item with a value"),
    rule(#"[{"/":"/taco/*","?":{"cheese":"?*"}}]"#, "/taco/1?cheese=", .noMatch, "?* needs one character"),
    rule(#"[{"/":"/taco/*","?":{"cheese":"?*"}}]"#, "/taco/1", .noMatch, "an absent item is the empty string"),
    rule(
        #"[{"/":"/taco/*","?":{"cheese":"?*"}}]"#, "/taco/1?cheese=a&cheese=", .noMatch, "every occurrence must match"),
    rule(#"[{"?":{"b":"*"}}]"#, "/x?a=1", .match, "absent item = empty, which * accepts"),
    rule(#"[{"?":{"id":"7"}}]"#, "/x?id=7&id=7", .match, "identical duplicates both match"),
    rule(#"[{"?":{"a":"1","flag":true}}]"#, "/x?a=2", .match, "a non-string value voids the whole dictionary"),
    rule(#"[{"?":"a=1"}]"#, "/x?a=1&b=2", .noMatch, "a query string must cover the whole query"),
    rule(#"[{"?":"a=1"}]"#, "/x", .noMatch, "an absent query is empty, not a=1"),
    rule(##"[{"#":"*"}]"##, "/x", .match, "an absent fragment is empty"),
    rule(##"[{"#":"?*"}]"##, "/x", .noMatch, "?* needs a fragment"),
    rule(##"[{"#":"nav"}]"##, "/anything#nav", .match, "unnamed parts are ignored"),
    rule(
        #"[{"/":"/coupon/1???","exclude":true},{"/":"/coupon/????"}]"#, "/coupon/1234", .exclude,
        "the exclude comes first"),
    rule(
        #"[{"/":"/coupon/1???","exclude":true},{"/":"/coupon/????"}]"#, "/coupon/2345", .match,
        "the exclude does not match, the next rule does"),
    rule(
        #"[{"/":"/coupon/1???","exclude":true},{"/":"/coupon/????"}]"#, "/coupon/23456", .noMatch, "? counts characters"
    ),
    rule(#"[{"/":"/sourdough/?*","caseSensitive":false}]"#, "/SourDough/loaf", .match, "caseSensitive false folds"),
    rule(#"[{"/":"/sourdough/?*"}]"#, "/SourDough/loaf", .noMatch, "case-sensitive by default"),
    rule(#"[{"/":"/sourdough/?*"}]"#, "/sourdough/", .noMatch, "?* needs one character after the slash"),
    rule(#"[{"/":"/a%20b"}]"#, "/a%20b", .match, "encoded pattern against the encoded URL"),
    rule(#"[{"/":"/a b"}]"#, "/a%20b", .noMatch, "by default the URL stays encoded"),
    rule(#"[{"/":"/a b","percentEncoded":false}]"#, "/a%20b", .match, "percentEncoded false decodes the URL"),
    rule(#"[{"/":"/a%20b","percentEncoded":false}]"#, "/a%20b", .noMatch, "the pattern is never encoded"),
    rule(#"[{"/":"/a/b"}]"#, "/a%2Fb", .noMatch, "%2F is three characters"),
    rule(#"[{"/":"/a/b","percentEncoded":false}]"#, "/a%2Fb", .match, "decoded %2F is a slash"),
    rule(#"[{"/":"/caf%C3%A9"}]"#, "/caf%c3%a9", .noMatch, "hex case is text"),
    rule(
        #"[{"/":"/$(lang)_$(region)/$(food)/"}]"#, "/en_US/sushi/", .match, "predefined and custom variables",
        extra: food),
    rule(#"[{"/":"/$(lang)_$(region)/$(food)/"}]"#, "/en_US/pizza/", .noMatch, "pizza is not a food here", extra: food),
    rule(#"[{"/":"/$(region)/home"}]"#, "/UK/home", .noMatch, "GB, not UK"),
    rule(#"[{"/":"/$(region)/home"}]"#, "/GB/home", .match, "ISO region code"),
    rule(#"[{"/":"/id/$(upper)","caseSensitive":false}]"#, "/id/q", .match, "classes fold too"),
    rule(#"[{"/":"/$(kind)/x"}]"#, "/abcz/x", .match, "variable values may hold *", extra: food),
    rule(##"[{"#":"*"}]"##, "/bar", .noMatch, "defaults carry patterns", extra: #""defaults":{"/":"/foo/*"}"#),
    rule(##"[{"#":"*"}]"##, "/bar", .exclude, "defaults carry exclude", extra: #""defaults":{"exclude":true}"#),
    rule(#"[{"/":"/foo/*","casesensitive":true}]"#, "/FOO/1", .noMatch, "an unknown key does nothing"),
    // Slashes.
    rule(#"[{"/":"//abc//"}]"#, "/abc", .match, "any number of slashes at both ends of the pattern"),
    rule(#"[{"/":"/abc"}]"#, "https://example.com//abc//", .match, "and of the URL"),
    rule(#"[{"/":"/a//b"}]"#, "/a/b", .noMatch, "inner slashes are kept"),
    rule(#"[{"/":"/a//b"}]"#, "/a//b", .match, "inner double slash matched literally"),
    rule(#"[{"/":"/*"}]"#, "https://example.com", .match, "* accepts the empty path"),
    rule(#"[{"/":"/?*"}]"#, "/", .noMatch, "?* needs a non-empty path"),
    rule(#"[{"/":"/?*"}]"#, "/a", .match, "?* with one character"),
    rule(#"[{"/":"/buy/*"}]"#, "/buy//", .match, "trailing slashes of the URL removed before /* is tried"),
    rule(#"[{"/":"/buy/*/"}]"#, "/buy", .match, "the pattern's trailing slash is removed before the /* rule"),
    rule(#"[{"/":"/buy*"}]"#, "/buy", .match, "star matches nothing"),
    rule(#"[{"/":"/buy*"}]"#, "/buyer/x", .match, "star crosses segments"),
    rule(#"[{"/":"/a/*/c"}]"#, "/a/b/c", .match, "middle star"),
    rule(#"[{"/":"/a/*/c"}]"#, "/a/b/x/c", .match, "middle star across segments"),
    rule(#"[{"/":"/a/*"}]"#, "/ab", .noMatch, "the /* rule removes exactly /*"),
    rule(#"[{"/":"/"}]"#, "/x", .noMatch, "the root pattern matches only the root"),
    rule(#"[{"/":""}]"#, "/", .match, "an empty pattern is the root"),
    rule(#"[{"/":"*/end"}]"#, "/a/b/end", .match, "leading star"),
    rule(#"[{"/":"*/end"}]"#, "/end", .noMatch, "leading star keeps its slash"),
    // Wildcards.
    rule(#"[{"/":"/a?c"}]"#, "/abc", .match, "? is one character"),
    rule(#"[{"/":"/a?c"}]"#, "/a/c", .match, "? may be a slash"),
    rule(#"[{"/":"/a?c"}]"#, "/ac", .noMatch, "? is not optional"),
    rule(
        #"[{"/":"/*a*a*a*b"}]"#, "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", .noMatch,
        "pathological stars stay linear and fail"),
    rule(#"[{"/":"/*a*a*a*b"}]"#, "/xaxaxab", .match, "several stars"),
    rule(#"[{"/":"/*.js"}]"#, "/static/app.js", .match, "suffix"),
    rule(#"[{"/":"/*.js"}]"#, "/static/app.json", .noMatch, "suffix must end the path"),
    rule(#"[{"/":"/caf?"}]"#, "/caf%C3%A9", .noMatch, "encoded é is six characters"),
    rule(#"[{"/":"/caf??????"}]"#, "/caf%C3%A9", .match, "encoded é counted as written"),
    rule(#"[{"/":"/caf?","percentEncoded":false}]"#, "/caf%C3%A9", .match, "decoded é is one scalar"),
    rule(
        #"[{"/":"/café","percentEncoded":false}]"#, "https://example.com/café", .match,
        "a raw non-ASCII URL is encoded, then decoded"),
    rule(#"[{"/":"/café"}]"#, "https://example.com/café", .noMatch, "raw non-ASCII URL is read encoded"),
    // Case.
    rule(#"[{"/":"/Help/*"}]"#, "/help/1", .noMatch, "case-sensitive"),
    rule(#"[{"/":"/Help/*","caseSensitive":false}]"#, "/HELP/1", .match, "both sides folded"),
    rule(
        // É as an escape: the line's width is counted in bytes.
        #"[{"/":"/\#u{C9}T\#u{C9}","caseSensitive":false,"percentEncoded":false}]"#, "/%C3%A9t%C3%A9", .match,
        "non-ASCII folds too"
    ),
    rule(#"[{"/":"/x","?":{"q":"ABC"},"caseSensitive":false}]"#, "/x?q=abc", .match, "query values fold"),
    rule(#"[{"/":"/x","?":{"Q":"abc"},"caseSensitive":false}]"#, "/x?q=abc", .noMatch, "item names compare exactly"),
    rule(##"[{"#":"Top","caseSensitive":false}]"##, "/x#TOP", .match, "fragments fold"),
    rule(
        #"[{"/":"/loose/*"}]"#, "/LOOSE/1", .match, "file defaults set caseSensitive",
        extra: #""defaults":{"caseSensitive":false}"#),
    rule(
        #"[{"/":"/loose/*","caseSensitive":true}]"#, "/LOOSE/1", .noMatch, "a rule's own key beats defaults",
        extra: #""defaults":{"caseSensitive":false}"#),
    // Query.
    rule(#"[{"?":{"a":"1"}}]"#, "/x?a=1&b=2", .match, "unnamed items are ignored"),
    rule(#"[{"?":{"a":"1"}}]"#, "/x?b=2", .noMatch, "named item absent = empty, not 1"),
    rule(#"[{"?":{"flag":""}}]"#, "/x?flag", .match, "an item without = has the empty value"),
    rule(#"[{"?":{"a":"1"}}]"#, "/x?&&a=1&", .match, "empty items are skipped"),
    rule(#"[{"?":{"a":"b=c"}}]"#, "/x?a=b=c", .match, "split at the first ="),
    rule(#"[{"?":{"q":"a b"}}]"#, "/x?q=a%20b", .noMatch, "query stays encoded by default"),
    rule(#"[{"?":{"q":"a b"},"percentEncoded":false}]"#, "/x?q=a%20b", .match, "decoded item by item"),
    rule(#"[{"?":{"q":"a+b"}}]"#, "/x?q=a+b", .match, "+ is not a space"),
    rule(#"[{"?":{"q":"a b"},"percentEncoded":false}]"#, "/x?q=a+b", .noMatch, "+ stays + even decoded"),
    rule(#"[{"?":{"a&b":"1"},"percentEncoded":false}]"#, "/x?a%26b=1", .match, "names decoded after splitting"),
    rule(#"[{"?":{"id":"*"}}]"#, "/x?id=7&id=42", .match, "* accepts every occurrence"),
    rule(#"[{"?":{"id":"42"}}]"#, "/x?id=7&id=42", .noMatch, "every occurrence must match"),
    rule(#"[{"?":"*"}]"#, "/x?anything=at&all", .match, "whole-query star"),
    rule(#"[{"?":"a=*"}]"#, "/x?a=1&b=2", .match, "whole-query star crosses &"),
    rule(#"[{"?":""}]"#, "/x?", .match, "an empty query string is empty"),
    rule(#"[{"?":{}}]"#, "/x?a=1", .match, "an empty dictionary constrains nothing"),
    rule(#"[{"/":"/x","?":{"a":null}}]"#, "/y", .noMatch, "a voided dictionary still leaves the path"),
    rule(##"[{"#":"a?b"}]"##, "/x#a?b", .match, "? in a fragment pattern is a wildcard that matches ?"),
    // Fragments.
    rule(##"[{"#":""}]"##, "/x#", .match, "an empty fragment"),
    rule(##"[{"#":"nav/"}]"##, "/x#nav", .noMatch, "slash rules are for / only"),
    rule(
        ##"[{"#":"no_universal_links","exclude":true},{"/":"*"}]"##, "/buy#no_universal_links", .exclude,
        "fragment exclude"),
    rule(
        ##"[{"#":"no_universal_links","exclude":true},{"/":"*"}]"##, "/buy", .match,
        "fragment exclude only with the fragment"),
    // Order and exclude.
    rule(#"[{"/":"/a/*"},{"/":"/a/private/*","exclude":true}]"#, "/a/private/x", .match, "the first rule decides"),
    rule(#"[{"/":"/a/*","exclude":false}]"#, "/a/x", .match, "exclude false is a normal rule"),
    rule(#"[{"/":"*","exclude":true}]"#, "/anything", .exclude, "exclude everything"),
    rule(#"[]"#, "/x", .noMatch, "no rules"),
    rule(#"[{}]"#, "/x?y#z", .match, "an empty dictionary matches every URL"),
    rule(#"[{"comment":"everything"}]"#, "/x", .match, "comment alone matches everything"),
    rule(#"["/x"]"#, "/x", .noMatch, "a bare string component matches nothing"),
    // Variables.
    rule(#"[{"/":"/id/$(digit)$(digit)"}]"#, "/id/42", .match, "two classes"),
    rule(#"[{"/":"/id/$(digit)$(digit)"}]"#, "/id/4", .noMatch, "a class is one character"),
    rule(#"[{"/":"/h/$(xdigit)"}]"#, "/h/F", .match, "xdigit upper"),
    rule(#"[{"/":"/$(lang)/x"}]"#, "/en/x", .match, "lang"),
    rule(#"[{"/":"/$(lang)/x"}]"#, "/english/x", .noMatch, "lang is a code"),
    rule(#"[{"/":"/$(lang)/x","caseSensitive":false}]"#, "/EN/x", .match, "lang folds"),
    rule(#"[{"/":"/$(nope)/x"}]"#, "/nope/x", .noMatch, "an undefined variable never matches"),
    rule(#"[{"/":"/$(oops"}]"#, "/$(oops", .match, "an unterminated reference is literal text"),
    rule(#"[{"/":"/a$(empty)b"}]"#, "/ab", .match, "an empty value", extra: food),
    rule(#"[{"/":"/$(food)/*"}]"#, "/sushi", .match, "variable then /*", extra: food),
    rule(#"[{"/":"/$(food)$(food)"}]"#, "/sushiburrito", .match, "two uses choose independently", extra: food),
    rule(#"[{"/":"/$(food)"}]"#, "/SUSHI", .noMatch, "values are case-sensitive by default", extra: food),
    rule(#"[{"/":"/$(food)","caseSensitive":false}]"#, "/SUSHI", .match, "values fold", extra: food),
    rule(#"[{"/":"/$(kind)"}]"#, "/az", .match, "a value's * may be empty", extra: food),
    rule(#"[{"/":"/$(kind)"}]"#, "/bz", .noMatch, "a value's literal still counts", extra: food),
    // Hosts.
    rule(#"[{"/":"*"}]"#, "https://example.com./x", .match, "a trailing dot on the host is ignored"),
    rule(#"[{"/":"*"}]"#, "https://example.com:8443/x", .match, "the port is ignored"),
    rule(#"[{"/":"*"}]"#, "https://user@example.com/x", .match, "user info is ignored"),
    rule(#"[{"/":"*"}]"#, "https://www.example.com/x", .noMatch, "www is another host"),
]

@Suite struct MatcherCaseTests {
    @Test(arguments: matcherCases)
    func decides(_ c: MatcherCase) {
        let got = AASAMatcher(c.document).decide(appID: "ABCDE12345.com.example.a", url: c.url, domain: "example.com")
        #expect(got.decision == c.expect, "\(c.reason)")
    }

    @Test func hasAtLeastAHundredCases() {
        #expect(matcherCases.count >= 100)
        #expect(matcherCases.filter { $0.expect != .noMatch }.count >= 60)
    }

    @Test func appsDecideIndependently() {
        let doc = AASADocument.parse(
            #"""
            {"applinks":{"details":[
              {"appIDs":["ABCDE12345.com.a"],"components":[{"/":"/shop/*"},{"/":"/x/*","exclude":true}]},
              {"appIDs":["ABCDE12345.com.b"],"components":[{"/":"/shop/cart/*"},{"/":"*"}]}]}}
            """#)
        let m = AASAMatcher(doc)
        #expect(m.resolve(url: "https://e.com/shop/cart/1").appID == "ABCDE12345.com.a", "both match; A comes first")
        #expect(m.decide(appID: "ABCDE12345.com.b", url: "https://e.com/shop/cart/1").decision == .match)
        #expect(m.resolve(url: "https://e.com/x/1").appID == "ABCDE12345.com.b", "an exclude is per app")
        #expect(m.resolve(url: "https://e.com/x/1").excluded == false)
        let r = m.resolve(url: "https://e.com/x/1")
        #expect(r.decisions.map(\.decision.decision) == [.exclude, .match])
    }

    @Test func appIDsWinOverAppID() {
        let doc = AASADocument.parse(
            #"{"applinks":{"details":[{"appID":"ABCDE12345.com.a","appIDs":[],"components":[{"/":"*"}]}]}}"#)
        #expect(AASAMatcher(doc).decide(appID: "ABCDE12345.com.a", url: "https://e.com/x").decision == .noMatch)
    }

    @Test func componentsWinOverPaths() {
        let doc = AASADocument.parse(
            #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.a"],"components":[{"/":"/a/*"}],"paths":["*"]}]}}"#)
        #expect(AASAMatcher(doc).decide(appID: "ABCDE12345.com.a", url: "https://e.com/b").decision == .noMatch)
    }

    @Test func legacyPathsIgnoreQueryAndDefaults() {
        let doc = AASADocument.parse(
            #"""
            {"applinks":{"defaults":{"caseSensitive":false},"details":[{"appID":"ABCDE12345.com.a",\#
            "paths":["/Buy/*","NOT /x"]}]}}
            """#
        )
        let m = AASAMatcher(doc)
        #expect(m.decide(appID: "ABCDE12345.com.a", url: "https://e.com/Buy/1?q=1#f").decision == .match)
        #expect(
            m.decide(appID: "ABCDE12345.com.a", url: "https://e.com/buy/1").decision == .noMatch,
            "defaults do not reach paths")
        #expect(m.decide(appID: "ABCDE12345.com.a", url: "https://e.com/x").decision == .exclude)
        #expect(m.decide(appID: "ABCDE12345.com.a", url: "https://e.com/$(lang)").decision == .noMatch)
    }

    @Test func excludedIsReportedWhenNoAppOpens() {
        let doc = AASADocument.parse(
            #"""
            {"applinks":{"details":[{"appIDs":["ABCDE12345.com.a"],"components":[{"/":"/p/*","exclude":true},\#
            {"/":"*"}]}]}}
            """#
        )
        let r = AASAMatcher(doc).resolve(url: "https://e.com/p/1")
        #expect(r.appID == nil)
        #expect(r.excluded)
        #expect(r.decisions.first?.decision.rule == RuleLocation(detailsIndex: 0, kind: .component, index: 0))
    }

    @Test func internationalHostsCompareAsPunycode() {
        let doc = AASADocument.parse(
            #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.a"],"components":[{"/":"*"}]}]}}"#)
        let m = AASAMatcher(doc)
        #expect(
            m.decide(appID: "ABCDE12345.com.a", url: "https://bücher.example/x", domain: "xn--bcher-kva.example")
                .decision == .match)
        #expect(
            m.decide(appID: "ABCDE12345.com.a", url: "https://xn--bcher-kva.example/x", domain: "BÜCHER.example")
                .decision == .match)
    }
}
