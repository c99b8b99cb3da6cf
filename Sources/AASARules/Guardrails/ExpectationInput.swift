import AASAKernel
import AASAModel
import AASAStore
import Foundation

/// An expectation as a request (the API's body, or one `expect:` item of a manifest) states it,
/// checked against the domain and the team before anything is stored: the URL lies on the domain
/// or an alias and inside the team's grant (an admin's may lie outside, but for `opens`), `opens`
/// names one of the team's own apps, `notApp` a registered app, `opensNone` no app.
package struct ExpectationInput: Sendable, Equatable {
    package var url: String
    package var kind: ExpectationKind
    package var appID: String?
    package var source: String
    package var description: String?

    package init(url: String, kind: ExpectationKind, appID: String? = nil, source: String, description: String? = nil) {
        self.url = url
        self.kind = kind
        self.appID = appID
        self.source = source
        self.description = description
    }

    /// The same expectation, as far as uniqueness goes.
    package func sameTarget(_ record: ExpectationRecord) -> Bool {
        record.url == url && record.kind == kind.rawValue && record.appID == appID
    }

    /// The bounds openapi.yaml declares (the generated decoder checks none), checked before
    /// anything is read or locked: an oversized field is the answer, not a stale `If-Match`.
    package func boundsProblems(pointer: String) -> [FieldError] {
        var errors: [FieldError] = []
        func fail(_ field: String, _ message: String) {
            errors.append(FieldError(field: pointer + field, rule: "maxLength", message: message))
        }
        if url.utf8.count > 2048 { fail("/url", "a URL is at most 2048 bytes") }
        if let appID, appID.count > 255 { fail("/appID", "an app ID is at most 255 characters") }
        if let description, description.count > 500 { fail("/description", "a description is at most 500 characters") }
        return errors
    }

    /// Throws (422) when `boundsProblems` finds any.
    package func checkBounds() throws {
        let errors = boundsProblems(pointer: "")
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }
    }

    /// Every problem with this expectation for `team` on `domain`, with fields under `pointer`.
    /// `adminPinned`: an admin's API write, which may pin a URL outside the team's grant (not an
    /// `opens`: a team's app opens only what the team's rules, inside its grant, say).
    package func problems(
        domain: DomainRecord, teamID: Int64, teamName: String, adminPinned: Bool, pointer: String, session: DBSession
    ) async throws -> [FieldError] {
        var errors = boundsProblems(pointer: pointer)
        guard errors.isEmpty else { return errors }
        func fail(_ field: String, _ rule: String, _ message: String) {
            errors.append(FieldError(field: pointer + field, rule: rule, message: message))
        }
        guard let parts = URLComponents(string: url), parts.scheme?.lowercased() == "https", let rawHost = parts.host,
            !rawHost.isEmpty
        else {
            fail("/url", "https-url", "an expectation's URL is an absolute https:// URL, as Universal Links are")
            return errors
        }
        let host = (try? HostName.normalized(rawHost)) ?? rawHost.lowercased()
        if host != domain.host && !domain.aliases.contains(host) {
            let names = ([domain.host] + domain.aliases).joined(separator: ", ")
            fail("/url", "on-domain", "\(rawHost) is not \(domain.host) or one of its aliases (\(names))")
        }
        switch kind {
        case .opensNone:
            if appID != nil { fail("/appID", "not-allowed", "opensNone names no app: leave appID out") }
        case .opens, .notApp:
            guard let appID else {
                fail("/appID", "required", "\(kind.rawValue) names an app: give appID")
                break
            }
            guard let app = try await session.app(appID: appID) else {
                fail("/appID", "app-exists", "no app \(appID) is registered")
                break
            }
            if kind == .opens && app.teamID != teamID {
                fail(
                    "/appID", "own-app",
                    "team \(teamName) may only expect its own apps to open a URL; \(appID) is another team's")
            }
        }
        if errors.isEmpty && (kind == .opens || !adminPinned) {
            let grant = try await session.grant(domainID: domain.id, teamID: teamID)
            if !ExpectationScope.inGrant(url: url, prefixes: grant?.pathPrefixes ?? []) {
                let path = ExpectationScope.path(of: url) ?? url
                fail(
                    "/url", "grant",
                    "\(path) is outside team \(teamName)'s grant on \(domain.host) "
                        + "(\(grant?.pathPrefixes.joined(separator: ", ") ?? "none")): a team pins only URLs "
                        + "it holds, whatever the kind; an admin may pin others")
            }
        }
        return errors
    }
}

extension ExpectationKind {
    /// The answer that makes `holds` fail, described for the 422 of an expectation that does not
    /// hold when it is registered.
    package func brokenMessage(url: String, appID: String?, opener: String?) -> String {
        switch self {
        case .opens: "\(url) is opened by \(opener ?? "no app"), not \(appID ?? "")"
        case .opensNone: "\(url) is opened by \(opener ?? "no app")"
        case .notApp: "\(url) is opened by \(appID ?? "")"
        }
    }
}
