import AASAKernel
import AASAModel
import AASAStore

/// The guardrails in force on one domain: the organisation's and the domain's own. Protected
/// path patterns add up; of two budgets the smaller applies.
package struct EffectiveGuardrails: Sendable {
    package var protectedPaths: [String] = []
    package var maxRulesPerTeam: Int?
    package var maxBytesPerTeam: Int?

    package init(_ records: [GuardrailRecord]) {
        for record in records {
            for pattern in record.protectedPaths where !protectedPaths.contains(pattern) {
                protectedPaths.append(pattern)
            }
            maxRulesPerTeam = Self.smaller(maxRulesPerTeam, record.maxRulesPerTeam)
            maxBytesPerTeam = Self.smaller(maxBytesPerTeam, record.maxBytesPerTeam)
        }
    }

    package static func of(domainID: Int64, session: DBSession) async throws -> EffectiveGuardrails {
        EffectiveGuardrails(try await session.guardrailsApplying(to: domainID))
    }

    private static func smaller(_ a: Int?, _ b: Int?) -> Int? {
        switch (a, b) {
        case (let a?, let b?): min(a, b)
        default: a ?? b
        }
    }
}

/// Protected paths: no app may open a URL in one of the patterns. Checked on the automata of the
/// document the change would leave (`ProtectedPaths`), so a rule cannot slip past with a pattern
/// no sample happens to hit; the refusal (409 `protected-path`) shows a witness URL for each app.
///
/// An opening an admin forced through (pattern, app) is recorded as an exemption: it blocks no
/// later change while it lasts, and the exemption lapses as soon as a change closes the opening,
/// so opening it again is refused again.
package struct ProtectedPathPolicy: DomainPolicy {
    package init() {}

    package func check(_ candidate: PolicyCandidate, session: DBSession) async throws {
        let patterns = try await EffectiveGuardrails.of(domainID: candidate.domain.id, session: session).protectedPaths
        let exempt = try await session.protectedPathExemptions(domainID: candidate.domain.id)
        guard !patterns.isEmpty else {
            if !exempt.isEmpty { try await session.setProtectedPathExemptions(domainID: candidate.domain.id, []) }
            return
        }
        let matcher = candidate.matcher()
        let document = candidate.document?.document ?? ((try? AASADocument(json: candidate.bytes)) ?? AASADocument())
        let (iosOpenings, iosComplete) = ProtectedPaths.openings(
            in: document, matcher: matcher, patterns: patterns, host: candidate.domain.host)
        // assetlinks.json too, when it is at stake (an AASA rollback leaves it as it is).
        var android = candidate.document.map {
            AndroidProtectedPaths.openings($0.android, patterns: patterns, host: candidate.domain.host)
        }
        if android == nil, let bytes = candidate.assetLinks {
            let file = AssetLinksDocument.parse(bytes).document ?? AssetLinksDocument(statements: [])
            let teams = try await session.teamNames(ofApps: AndroidProtectedPaths.packages(file))
            android = AndroidProtectedPaths.openings(
                file, teams: teams, patterns: patterns, host: candidate.domain.host)
        }
        let openings = iosOpenings + (android?.openings.map(\.opening) ?? [])
        let complete = iosComplete && android?.complete != false
        func isExempt(_ o: ProtectedPathOpening) -> Bool {
            exempt.contains { $0.pattern == o.pattern && $0.appID == o.appID }
        }
        // Exemptions whose opening is gone lapse; forced openings become exemptions.
        var keep = openings.filter(isExempt).map { (pattern: $0.pattern, appID: $0.appID) }
        // An assetlinks.json rollback changes only Android's answers: the current AASA's openings
        // are not its doing, and refuse nothing here.
        let androidOnly = candidate.assetLinks != nil
        let fresh = openings.filter { o in
            !isExempt(o) && (!androidOnly || android?.openings.contains { $0.opening == o } == true)
        }
        if candidate.actor.override != nil { keep += fresh.map { (pattern: $0.pattern, appID: $0.appID) } }
        if keep.count != exempt.count || !fresh.isEmpty && candidate.actor.override != nil {
            try await session.setProtectedPathExemptions(domainID: candidate.domain.id, keep)
        }
        let androidFresh = (android?.openings ?? []).filter { found in fresh.contains(found.opening) }
        let violations =
            Self.describe(
                fresh.filter { o in !androidFresh.contains { $0.opening == o } },
                complete: complete || !openings.isEmpty, candidate: candidate, matcher: matcher)
            + androidFresh.map(AndroidProtectedPaths.describe)
        guard violations.isEmpty else {
            throw ServiceError.policy(
                .conflict, slug: "protected-path", title: "The change opens a protected path in an app",
                detail: ServiceError.listed(violations.compactMap { $0.objectValue?["message"]?.stringValue }),
                violations: violations)
        }
    }

    package static func describe(
        _ openings: [ProtectedPathOpening], complete: Bool, candidate: PolicyCandidate, matcher: AASAMatcher
    ) -> [JSONValue] {
        var out: [JSONValue] = openings.map { opening in
            var item: JSONObject = [
                "pattern": .string(opening.pattern), "url": .string(opening.url), "appID": .string(opening.appID),
            ]
            let reference = candidate.ruleReference(opening.rule)
            item.append("rule", reference)
            let team = reference.objectValue?["team"]?.stringValue.map { " (team \($0))" } ?? ""
            item.append(
                "message",
                .string(
                    "\(opening.url) lies in the protected path \(opening.pattern), and \(opening.appID)\(team) "
                        + "would open it by its rule at \(opening.rule.pointer)"))
            return .object(item)
        }
        if !complete && out.isEmpty {
            // A search cut short proves nothing either way: refuse rather than let an unchecked file through.
            out.append(
                .object([
                    "message": .string(
                        "the protected-path check ran out of its work bound on this file; "
                            + "simplify the rules near the protected paths, or an admin may force it")
                ]))
        }
        return out
    }
}
