import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import Foundation

/// Which app opens a URL, on iOS, on Android or on both, in the published files or the draft, by
/// which rule, and (when asked) why: the answer of `POST /v1/match`, worked out here beside the
/// reads so that a handler (or a page) only decodes and encodes.
package struct MatchService: Sendable {
    package let reads: RegistryReads

    package init(reads: RegistryReads) {
        self.reads = reads
    }

    package enum Platform: Sendable { case ios, android, both }

    package struct Question: Sendable {
        package var url: String
        package var draft: Bool
        package var platform: Platform
        package var explain: Bool
        package var expectedAppID: String?

        package init(url: String, draft: Bool, platform: Platform, explain: Bool, expectedAppID: String? = nil) {
            self.url = url
            self.draft = draft
            self.platform = platform
            self.explain = explain
            self.expectedAppID = expectedAppID
        }
    }

    package struct IOSAnswer: Sendable {
        package var resolution: Resolution
        /// The rule that decided: its team and stored rule ID when the document was rendered from
        /// stored rules, and its pointer (nil when no rule matched).
        package var rule: (team: String?, ruleID: String?, path: String)?
        package var explanation: Explanation?
    }

    package struct Answer: Sendable {
        package var source: RegistryReads.MatchSource
        /// What the service knows that the matcher cannot: an alias, a wildcard entitlement's parent.
        package var hints: [Explanation.Hint]
        /// nil when iOS was not asked, or the domain has no AASA to answer from.
        package var ios: IOSAnswer?
        package var android: AndroidMatch?
        /// The team of each app named in the answer.
        package var teams: [String: String]
    }

    /// 422 naming `/url` when it is not an absolute http(s) URL with a host; 404 when no domain
    /// answers to its host (nor a parent, for a wildcard entitlement), or when the file asked about
    /// is not published yet.
    package func match(_ question: Question) async throws -> Answer {
        guard let components = URLComponents(string: question.url), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let rawHost = components.host, !rawHost.isEmpty
        else {
            throw ServiceError.invalid(field: "/url", rule: "url", "an absolute http(s) URL with a host")
        }
        let urlHost = (try? HostName.normalized(rawHost)) ?? rawHost.lowercased()
        let source = try await reads.matchSource(urlHost: urlHost, draft: question.draft)
        let hints = Self.hints(urlHost: urlHost, source: source)
        let iosBytes = question.platform == .android ? nil : source.bytes
        let androidBytes = question.platform == .ios ? nil : source.assetLinksBytes
        if iosBytes == nil && androidBytes == nil && source.wildcardParent == nil && !question.draft {
            let file = question.platform == .android ? "its assetlinks.json" : "it"
            throw ServiceError.notFound("\(source.host) has not published \(file) yet; ask with source: draft")
        }
        var answer = Answer(source: source, hints: hints, teams: [:])
        if let bytes = iosBytes {
            let matcher = try PublishedMatchers.aasa(bytes)
            // The file is served for the URL's own host (an alias included), so the host check uses it.
            let resolution = matcher.resolve(url: question.url, domain: urlHost)
            answer.ios = IOSAnswer(
                resolution: resolution,
                rule: resolution.rule.map { location in
                    let ref = source.document?.ruleRef(location)
                    return (ref?.team, ref?.ruleID, location.pointer.description)
                },
                explanation: question.explain
                    ? matcher.explain(url: question.url, domain: urlHost, expectedApp: question.expectedAppID) : nil)
        }
        if question.platform != .ios {
            let android = AndroidMatch(
                bytes: androidBytes ?? [], document: source.document?.android, url: question.url)
            answer.android = android
            answer.teams = try await reads.teams(
                ofApps: android.packages + (answer.ios?.resolution.appID.map { [$0] } ?? []))
            for entry in source.document?.android.entries ?? [] { answer.teams[entry.appID] = entry.team }
        }
        return answer
    }

    private static func hints(urlHost: String, source: RegistryReads.MatchSource) -> [Explanation.Hint] {
        if let parent = source.wildcardParent {
            return [
                .init(
                    code: "wildcard-subdomain",
                    message: "no domain here answers to \(urlHost); an app whose entitlement is "
                        + "applinks:*.\(parent) asks for \(urlHost)'s own file, which this service does not publish",
                    rule: nil)
            ]
        }
        if urlHost != source.host {
            return [
                .init(
                    code: "host-alias",
                    message: "\(urlHost) is an alias of \(source.host): it serves \(source.host)'s file, "
                        + "and an app needs applinks:\(urlHost) in its entitlements for it", rule: nil)
            ]
        }
        return []
    }
}
