import AASAModel
import Testing

/// Apple's own answers (`swcutil`, recorded in ../shared/conformance): every one must agree.
@Suite struct ConformanceTests {
    @Test func publicCorpusAgreesWithSwcutil() throws {
        let cases = try SharedData.cases("conformance/cases.json")
        #expect(cases.count == 140)
        try check(cases)
    }

    @Test func everyRecordedSwcutilAnswerAgrees() throws {
        let cases = try SharedData.cases("conformance/oracle-cases.jsonl")
        #expect(cases.count == 295)
        try check(cases)
    }

    /// The cases that expect `match` or `exclude` are what prove a matcher (a matcher that matches
    /// nothing passes every `no_match`): make sure they are a real share of the run.
    @Test func corpusExercisesPositiveDecisions() throws {
        let cases = try SharedData.cases("conformance/oracle-cases.jsonl")
        #expect(cases.filter { $0.expect != .noMatch }.count >= 180)
    }

    func check(_ cases: [SharedData.Case]) throws {
        var perFeature: [String: (pass: Int, total: Int)] = [:]
        for c in cases {
            let document = try #require(AASAParser.read(c.aasa).document, "\(c.name): not a document")
            let got = AASAMatcher(document).decide(appID: c.appID, url: c.url, domain: c.domain).decision
            #expect(got == c.expect, "\(c.name): swcutil says \(c.expect.rawValue), we say \(got.rawValue)")
            perFeature[c.feature, default: (0, 0)].total += 1
            if got == c.expect { perFeature[c.feature, default: (0, 0)].pass += 1 }
        }
        let summary = perFeature.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.pass)/\($0.value.total)" }
        print("conformance by feature: " + summary.joined(separator: ", "))
    }
}
