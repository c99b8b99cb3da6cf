import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore

/// `GET /v1/domains/{host}/expectations/check`: every expectation on the domain against the draft
/// (as the caller may see it) and against the current revision, with the app and rule that
/// decide each URL.
package struct ExpectationCheck: Sendable {
    package struct Outcome: Sendable {
        package var holds: Bool
        package var opener: String?
        /// The deciding rule: team, app and rule ID where known, and its pointer.
        package var rule: JSONValue?
    }

    package struct Result: Sendable {
        package var expectation: ExpectationRecord
        package var draft: Outcome
        /// Nil before the domain's first publish.
        package var published: Outcome?
    }

    package var host: String
    package var revision: Int?
    package var results: [Result]

    package static func run(_ host: String, work: RequestWork, principal: Principal) async throws -> ExpectationCheck {
        try await work.read { session in
            let domain = try await Lookup.domain(host, session: session)
            let expectations = try await ExpectationScope.marked(
                try await session.listExpectations(domainID: domain.id), domainID: domain.id, session: session)
            let current = try await session.currentRevision(of: domain)
            // Nothing to check: no render (the console's overview asks this of every domain).
            if expectations.isEmpty {
                return ExpectationCheck(host: domain.host, revision: current?.number, results: [])
            }
            let draft = try await DomainDocument.render(
                try await RegistryReads.draftSnapshot(domain, for: principal, session: session))
            let evaluation = try await ExpectationService.Evaluation(draft, domain: domain, session: session)
            let android = try await session.androidAppIDs(among: Array(Set(expectations.compactMap(\.appID))))
            let results = expectations.map { e -> Result in
                let kind = ExpectationKind(rawValue: e.kind) ?? .opensNone
                let isAndroid = e.appID.map(android.contains) ?? false
                func outcome(_ answer: LinkAnswer, document: DomainDocument?) -> Outcome {
                    let opener = answer.opener(url: e.url, appID: e.appID, isAndroid: isAndroid)
                    return Outcome(
                        holds: kind.holds(opener: opener?.appID, appID: e.appID), opener: opener?.appID,
                        rule: opener?.iosRule.map { DomainDocument.ruleReference($0, in: document) })
                }
                return Result(
                    expectation: e, draft: outcome(evaluation.draft, document: draft),
                    published: evaluation.published.map { outcome($0, document: nil) })
            }
            return ExpectationCheck(host: domain.host, revision: current?.number, results: results)
        }
    }
}
