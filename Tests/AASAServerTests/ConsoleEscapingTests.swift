import Mustache
import PropertyBased
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServer
@testable import AASAServices

/// The console's HTML escaping writes what Mustache's own writes, a byte at a time.
@Suite struct ConsoleEscapingTests {
    static func mustaches(_ text: String) throws -> String {
        try MustacheTemplate(string: "{{x}}").render(["x": text])
    }

    @Test func textIsEscapedAsMustacheEscapesIt() throws {
        let ours = ConsoleTemplates.HTMLText()
        for text in [
            "", "plain", "<script>alert('x')</script>", "a & b \"c\" d's <e>", "é<ü>ß&🙂'\"", "&amp;",
            "\u{0}<\u{7F}",
        ] {
            #expect(ours.escapeText(text) == (try Self.mustaches(text)))
        }
    }

    @Test func randomTextIsEscapedAsMustacheEscapesIt() async {
        let alphabet: [Character] = ["<", ">", "&", "\"", "'", "a", " ", "é", "🙂", "\n", "/", ";", "#"]
        await propertyCheck(count: 500, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var rng = Xoshiro(seed: (seed, ~seed, 3, seed &* 7))
            let text = String(
                (0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            let expected = try Self.mustaches(text)
            #expect(ConsoleTemplates.HTMLText().escapeText(text) == expected)
        }
    }

    @Test func everyPageTemplateEscapesWithIt() throws {
        // The page's own block and the layout it extends both escape.
        let page = ConsoleTemplates.render(
            "problem", ["title": "<b>&", "problem": ["detail": "<script>'x'</script>"] as [String: Any]])
        #expect(page.contains("<p>&lt;script&gt;&#39;x&#39;&lt;/script&gt;</p>"))
        #expect(page.contains("<title>&lt;b&gt;&amp; · aasad console</title>"))
        #expect(!page.contains("<script>'x'") && !page.contains("<b>&"))
    }
}
