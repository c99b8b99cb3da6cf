import AASAModel
import AASAStore
import Foundation

/// An expectation as a request (the API's body, or one `expect:` item of a manifest) states it,
/// checked against the domain and the team before anything is stored: the URL lies on the domain
/// or an alias, `opens` names one of the team's own apps and a URL inside its grant, `notApp` a
/// registered app, `opensNone` no app.
struct ExpectationInput: Sendable, Equatable {
    var url: String
    var kind: ExpectationKind
    var appID: String?
    var source: String
    var description: String?

    /// The same expectation, as far as uniqueness goes.
    func sameTarget(_ record: ExpectationRecord) -> Bool {
        record.url == url && record.kind == kind.rawValue && record.appID == appID
    }

    /// The bounds openapi.yaml declares (the generated decoder checks none), checked before
    /// anything is read or locked: an oversized field is the answer, not a stale `If-Match`.
    func boundsProblems(pointer: String) -> [FieldError] {
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
    func checkBounds() throws {
        let errors = boundsProblems(pointer: "")
        guard errors.isEmpty else { throw APIProblem.invalid(errors) }
    }

    /// Every problem with this expectation for `team` on `domain`, with fields under `pointer`.
    func problems(domain: DomainRecord, teamID: Int64, teamName: String, pointer: String, session: DBSession)
        async throws -> [FieldError]
    {
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
            guard kind == .opens else { break }
            if app.teamID != teamID {
                fail(
                    "/appID", "own-app",
                    "team \(teamName) may only expect its own apps to open a URL; \(appID) is another team's")
                break
            }
            let grant = try await session.grant(domainID: domain.id, teamID: teamID)
            let path = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
            if !PathGrant.covers(
                grant?.pathPrefixes ?? [],
                pathPattern: path.replacingOccurrences(of: "*", with: "%2A")
                    .replacingOccurrences(of: "?", with: "%3F"))
            {
                fail(
                    "/url", "grant",
                    "\(path) is outside team \(teamName)'s grant on \(domain.host) "
                        + "(\(grant?.pathPrefixes.joined(separator: ", ") ?? "none")); a team expects its apps to open only URLs it holds"
                )
            }
        }
        return errors
    }
}

extension ExpectationKind {
    /// The answer that makes `holds` fail, described for the 422 of an expectation that does not
    /// hold when it is registered.
    func brokenMessage(url: String, appID: String?, opener: String?) -> String {
        switch self {
        case .opens: "\(url) is opened by \(opener ?? "no app"), not \(appID ?? "")"
        case .opensNone: "\(url) is opened by \(opener ?? "no app")"
        case .notApp: "\(url) is opened by \(appID ?? "")"
        }
    }
}
