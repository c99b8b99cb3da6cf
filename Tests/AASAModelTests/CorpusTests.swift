import AASAModel
import Testing

/// The 77 real-world files of ../shared/corpus.
@Suite struct CorpusTests {
    @Test func everyFileGetsItsExpectedVerdict() throws {
        let expected = try #require(SharedData.json("corpus/expected-lint.json").objectValue)
        let files = try SharedData.corpusFiles()
        #expect(files.count == 77)
        for file in files {
            let report = AASALinter.lint(try SharedData.bytes("corpus/" + file))
            guard let want = expected[file]?.boolValue else {
                Issue.record("no expectation for \(file)")
                continue
            }
            #expect(report.isValid == want, "\(file): \(report.errors)")
            if !want {
                let first = try #require(report.errors.first)
                #expect(first.message.count > 20, "\(file): the message must say what is wrong")
            }
        }
    }

    /// Rendering keeps meaning: for URLs derived from each file's own patterns, the rendered file
    /// (compact, pretty and legacy) opens the same app as the original, with the same decisions.
    @Test func renderedFilesOpenTheSameApps() throws {
        var compared = 0
        for file in try SharedData.corpusFiles() {
            let parsed = AASAParser.parse(try SharedData.bytes("corpus/" + file))
            guard let original = parsed.document else { continue }
            let before = AASAMatcher(original)
            for options in [AASARenderer.Options(), .init(pretty: true), .init(legacy: true)] {
                let bytes = AASARenderer.render(original, options: options)
                let rendered = try #require(AASAParser.parse(bytes).document, "\(file) does not read back")
                let after = AASAMatcher(rendered)
                for url in ExampleURLs.derive(from: [original]) {
                    let a = before.resolve(url: url)
                    let b = after.resolve(url: url)
                    #expect(
                        a.appID == b.appID && a.excluded == b.excluded,
                        """
                        \(file) \(options): \(url) opened \(a.appID ?? "nothing") before, \(b.appID ?? "nothing") \
                        after
                        """
                    )
                    for app in before.appIDs {
                        #expect(
                            before.decide(appID: app, url: url).decision == after.decide(appID: app, url: url).decision)
                    }
                    compared += 1
                }
            }
        }
        #expect(compared > 3_000)
    }

    @Test func renderingIsIdempotentAndDeterministic() throws {
        for file in try SharedData.corpusFiles() {
            guard let document = AASAParser.parse(try SharedData.bytes("corpus/" + file)).document else { continue }
            for options in [AASARenderer.Options(), .init(pretty: true), .init(legacy: true, pretty: true)] {
                let once = AASARenderer.render(document, options: options)
                let twice = AASARenderer.render(AASAParser.parse(once).document!, options: options)
                #expect(once == twice, "\(file)")
                let text = String(decoding: once, as: UTF8.self)
                #expect(!text.split(separator: "\n").contains { $0.hasSuffix(" ") }, "no trailing spaces")
            }
        }
    }
}
