import AASAKernel
import AASAModel
import AASAStore
import Foundation

/// What a golden URL demands of the app that opens it.
package enum ExpectationKind: String, Sendable, CaseIterable {
    /// This app (one of the expecting team's own) opens the URL.
    case opens
    /// No app opens the URL: the browser does.
    case opensNone
    /// Whatever opens the URL, it is never this app.
    case notApp

    package func holds(opener: String?, appID: String?) -> Bool {
        switch self {
        case .opens: opener != nil && opener == appID
        case .opensNone: opener == nil
        case .notApp: opener != appID
        }
    }
}

/// Golden URLs: every team's expectations of a domain, evaluated with the compiled matcher on
/// every change before it commits. `draft` expectations are checked on every change to the draft
/// and on every publish; `published` ones on every publish and rollback. A change is refused
/// (409 `expectation-broken`) when it turns an expectation that holds into one that does not; an
/// expectation broken by an admin's override no longer blocks anyone, and holds again once a
/// change mends it. What each evaluation saw is stored, so the next refusal can say what opens
/// the URL now.
package struct ExpectationPolicy: DomainPolicy {
    package let cache: ExpectationCache

    package func check(_ candidate: PolicyCandidate, session: DBSession) async throws {
        let published = candidate.isPublish
        let expectations = try await cache.expectations(domainID: candidate.domain.id, session: session)
            .filter { published || $0.record.source == "draft" }
        guard !expectations.isEmpty else { return }
        let matcher = candidate.matcher()
        // A rollback of the AASA leaves assetlinks.json as it is: its Android expectations are not at stake.
        let apps =
            if let snapshot = candidate.document?.snapshot {
                snapshot.appsByIdentity
            } else {
                try await session.snapshot(of: candidate.domain).appsByIdentity
            }
        let answer = LinkAnswer(ios: matcher, android: candidate.androidMatcher(), apps: apps)
        // Only an expectation inside its team's grant (or an admin's) refuses a change; the others
        // are evaluated all the same, so what they see stays current (ExpectationScope). The grants
        // are the rendered state's, read in this transaction; a rollback, which renders nothing, reads them.
        let grants =
            if let snapshot = candidate.document?.snapshot {
                ExpectationScope.prefixes(snapshot.grants)
            } else {
                try await ExpectationScope.grants(domainID: candidate.domain.id, session: session)
            }
        var outcomes: [ExpectationOutcome] = []
        var broken: [JSONValue] = []
        for prepared in expectations {
            let expectation = prepared.record
            guard
                let opener = answer.opener(
                    prepared.url, url: expectation.url, appID: expectation.appID,
                    isAndroid: prepared.isAndroid)
            else { continue }
            let holds =
                ExpectationKind(rawValue: expectation.kind)?.holds(opener: opener.appID, appID: expectation.appID)
                ?? true
            let (held, openerBefore) =
                published
                ? (expectation.holdsWhenPublished, expectation.publishedApp)
                : (expectation.holdsInDraft, expectation.draftApp)
            if holds != held || opener.appID != openerBefore {
                outcomes.append(ExpectationOutcome(id: expectation.id, holds: holds, app: opener.appID))
            }
            // Told in this transaction: gone with it when the publish is refused, kept when an
            // admin's override lets it through (or the expectation no longer binds).
            if published && held && !holds {
                try await session.emitWebhookEvent(
                    WebhookEvent(
                        name: "expectation.broken", domain: candidate.domain.host, team: expectation.teamName,
                        actor: candidate.actor.name,
                        text:
                            "golden URL \(expectation.url) of team \(expectation.teamName) is broken in the published "
                            + "file of \(candidate.domain.host): \(opener.appID ?? "no app") opens it now",
                        data: .object([
                            "url": .string(expectation.url), "kind": .string(expectation.kind),
                            "appID": expectation.appID.map(JSONValue.string) ?? .null,
                            "before": openerBefore.map(JSONValue.string) ?? .null,
                            "after": opener.appID.map(JSONValue.string) ?? .null,
                        ])))
            }
            if held && !holds && ExpectationScope.binds(expectation, grants: grants) {
                broken.append(
                    Self.report(
                        expectation, before: openerBefore, after: opener, android: prepared.isAndroid,
                        candidate: candidate, matcher: matcher))
            }
        }
        try await session.updateOutcomes(outcomes, published: published)
        guard broken.isEmpty else {
            let stage = published ? "publishing this file" : "this change"
            throw ServiceError.policy(
                .conflict, slug: "expectation-broken", title: "The change breaks another team's links",
                detail: "\(stage) would break \(broken.count) golden URL(s) on \(candidate.domain.host): "
                    + ServiceError.listed(broken.compactMap { $0.objectValue?["message"]?.stringValue }),
                violations: broken)
        }
    }

    /// One broken expectation: the URL and its owner, what opens it now and after, and the rule
    /// or order change responsible.
    package static func report(
        _ e: ExpectationRecord, before: String?, after: LinkAnswer.Opener, android: Bool, candidate: PolicyCandidate,
        matcher: AASAMatcher
    ) -> JSONValue {
        var cause = JSONObject()
        var because: String
        if android || (after.appID != nil && after.iosRule == nil) {
            // Android answers per app, by each app's own rules in assetlinks.json.
            cause.append("kind", .string("android"))
            because = after.appID.map { "on Android \($0) opens it" } ?? "on Android no app's rules open it any more"
        } else if let opener = after.appID, let rule = after.iosRule {
            let expectedStillMatches =
                e.kind == ExpectationKind.opens.rawValue
                && e.appID.map {
                    matcher.decide(appID: $0, url: e.url).decision == .match
                } == true
            let reference = candidate.ruleReference(rule)
            if expectedStillMatches && candidate.action.hasPrefix("order.") {
                cause.append("kind", .string("order"))
                because = "the new app order puts \(opener) before \(e.appID ?? "")"
            } else {
                cause.append("kind", .string("rule"))
                because =
                    "rule \(reference.objectValue?["ruleID"]?.stringValue ?? rule.pointer.description) of \(opener)"
                    + (reference.objectValue?["team"]?.stringValue.map { " (team \($0))" } ?? "") + " opens it"
                    + (expectedStillMatches ? ", ahead of \(e.appID ?? "") in the app order" : "")
            }
            for member in reference.objectValue ?? [:] { cause.append(member.key, member.value) }
        } else if let expected = e.appID, e.kind == ExpectationKind.opens.rawValue {
            let decision = matcher.decide(appID: expected, url: e.url)
            if decision.decision == .exclude, let rule = decision.rule {
                cause.append("kind", .string("exclude"))
                because = "an exclude rule of \(expected) now covers it"
                for member in candidate.ruleReference(rule).objectValue ?? [:] {
                    cause.append(member.key, member.value)
                }
            } else {
                cause.append("kind", .string("no-rule"))
                cause.append("appID", .string(expected))
                because = "no rule of \(expected) matches it any more"
            }
        } else {
            cause.append("kind", .string("no-rule"))
            because = "no app opens it"
        }
        cause.append("change", .string(candidate.action))
        var out: JSONObject = [
            "expectationID": .string(e.id.uuidString.lowercased()), "url": .string(e.url),
            "team": .string(e.teamName), "kind": .string(e.kind), "source": .string(e.source),
        ]
        if let appID = e.appID { out.append("appID", .string(appID)) }
        out.append("opensNow", before.map(JSONValue.string) ?? .null)
        out.append("wouldOpen", after.appID.map(JSONValue.string) ?? .null)
        out.append("cause", .object(cause))
        let expected =
            switch ExpectationKind(rawValue: e.kind) {
            case .opens?: "opens \(e.appID ?? "")"
            case .opensNone?: "opens no app"
            default: "never opens \(e.appID ?? "")"
            }
        out.append(
            "message",
            .string(
                "\(e.url) (team \(e.teamName) expects it \(expected)) would be opened by \(after.appID ?? "no app"), "
                    + "not \(before ?? "no app") as now: \(because)"))
        return .object(out)
    }
}
