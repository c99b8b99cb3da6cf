import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// Whether each passkey client of a relying party can sign in (issue 52), step by step from the
/// registry to what devices read: the draft, the published revision, the origin (the last probe)
/// and Apple's CDN (iOS) or Google's Digital Asset Links API (Android); and whether each related
/// origin is listed in the published `/.well-known/webauthn`. One verdict per client, with the fix.
package struct RelyingPartyReport: Sendable {
    package enum Verdict: String, Sendable {
        case ready
        /// Published, and not yet what Apple's CDN or Google serve.
        case notYetAtCDN = "not-yet-at-cdn"
        case broken
    }

    /// One step: `ok` nil when nothing is known there yet (no probe, no CDN check).
    package struct Step: Sendable {
        package var name: String
        package var ok: Bool?
        package var detail: String
    }

    package struct Client: Sendable {
        package var appID: String
        package var platform: AppPlatform
        package var team: String
        package var verdict: Verdict
        package var fix: String?
        package var steps: [Step]
    }

    package struct WebOrigin: Sendable {
        package var origin: String
        package var inDraft: Bool
        package var published: Bool
    }

    package var rpID: String
    /// Whether the RP ID is a domain of the registry (its files are served from that host only).
    package var isDomain: Bool
    package var clients: [Client]
    package var web: [WebOrigin]
    package var warnings: [Finding]

    static let getLoginCreds = "delegate_permission/common.get_login_creds"

    package static func build(_ rpID: String, session: DBSession) async throws -> RelyingPartyReport {
        let appIDs = try await session.passkeyClientAppIDs(rpID: rpID)
        guard let domain = try await session.domain(host: rpID) else {
            var report = RelyingPartyReport(rpID: rpID, isDomain: false, clients: [], web: [], warnings: [])
            report.warnings.append(
                Finding(
                    code: "K005", path: "",
                    message: "\(rpID) is not a domain of the registry: its AASA, assetlinks.json and "
                        + "/.well-known/webauthn must be served from that host; add it as a domain"))
            for appID in appIDs {
                guard let app = try await session.app(appID: appID) else { continue }
                report.clients.append(
                    Client(
                        appID: appID, platform: app.platform, team: app.teamName, verdict: .broken,
                        fix: "add \(rpID) as a domain, grant \(app.teamName) webcredentials there, and publish it",
                        steps: []))
            }
            return report
        }
        let draft = try await DomainDocument.render(try await session.snapshot(of: domain))
        let published = try await session.currentRevision(of: domain).flatMap { try? AASADocument(json: $0.bytes) }
        let publishedLinks = try await session.currentAssetLinksRevision(domainID: domain.id)
            .flatMap { AssetLinksDocument.parse($0.bytes).document }
        let probe = try await session.lastProbe(domainID: domain.id)
        let cdn = try await session.cdnStatus(domainID: domain.id)
        var cdnDocument: AASADocument?
        if let number = cdn?.revision, let revision = try await session.revision(domainID: domain.id, number: number) {
            cdnDocument = try? AASADocument(json: revision.bytes)
        }
        let google = try await session.googleStatus(domainID: domain.id)
        let production = try await session.isProduction(environment: domain.environment)
        var report = RelyingPartyReport(rpID: rpID, isDomain: true, clients: [], web: [], warnings: [])
        for appID in appIDs {
            guard let app = try await session.app(appID: appID) else { continue }
            let client =
                app.platform == .ios
                ? ios(
                    app, rpID: rpID, draft: draft.document, published: published, probe: probe, cdn: cdn,
                    cdnDocument: cdnDocument)
                : android(
                    app, host: domain.host, production: production, draft: draft.android.document,
                    published: publishedLinks, probe: probe, google: google.first { $0.package == app.appID })
            report.clients.append(client)
        }
        let listed = try await session.relatedOrigins(domainID: domain.id).map(\.origin)
        let served =
            try await session.currentFileRevision(.webauthn, domainID: domain.id)
            .flatMap { RelatedOrigins.parse($0.bytes) } ?? []
        report.web = Set(listed + served).sorted().map {
            WebOrigin(origin: $0, inDraft: listed.contains($0), published: served.contains($0))
        }
        report.warnings += warnings(report, listed: listed)
        // The signing-key warnings of the clients' statements (A020 an upload key only on production, …).
        report.warnings += draft.android.warnings.filter {
            AndroidKeyWarnings.codes.contains($0.code) && appIDs.contains($0.appID ?? "")
        }
        return report
    }

    /// The warnings a publish of the RP ID's domain gives before it writes: `K001` for each passkey
    /// client the draft does not list for its platform's service, `K003` for more than five labels.
    /// One read (its clients) beside what the publish has read already.
    /// `listed` are the domain's related origins, as the publish has read them.
    package static func publishWarnings(
        _ draft: DomainDocument, domain: DomainRecord, listed: [String], session: DBSession
    ) async throws -> [Finding] {
        let appIDs = try await session.passkeyClientAppIDs(rpID: domain.host)
        var found: [Finding] = []
        let apple = Set(draft.document.webcredentials?.apps ?? [])
        var android = Set<String>()
        for (_, statement) in draft.android.document.statements where statement.relations.contains(getLoginCreds) {
            if case .androidApp(let package, _) = statement.target { android.insert(package) }
        }
        for appID in appIDs where !apple.contains(appID) && !android.contains(appID) {
            found.append(
                Finding(
                    code: "K001", path: "",
                    message: "\(appID) is a passkey client of \(domain.host) and the file lists it for no passkey "
                        + "service (webcredentials, get_login_creds): give it the service and its team's grant "
                        + "webcredentials",
                    appID: appID))
        }
        return found + tooManyLabels(domain.host, listed: listed)
    }

    /// `K003`: more than five labels among the related origins (refused at write; a rollback, or an
    /// operator's SQL, can still bring one).
    static func tooManyLabels(_ rpID: String, listed: [String]) -> [Finding] {
        guard Set(listed.compactMap(RelatedOrigins.label)).count > RelatedOrigins.maxLabels else { return [] }
        return [
            Finding(
                code: "K003", path: "",
                message: "\(rpID)'s related origins have more than \(RelatedOrigins.maxLabels) labels: "
                    + "browsers ignore the rest")
        ]
    }

    /// `K001`: a client lacks webcredentials (iOS) or get_login_creds (Android) in the draft;
    /// `K002`: an origin the draft lists is not yet published; `K003` (`tooManyLabels`).
    static func warnings(_ report: RelyingPartyReport, listed: [String]) -> [Finding] {
        var found: [Finding] = []
        for client in report.clients where client.steps.first?.ok == false {
            let what = client.platform == .ios ? "webcredentials" : "get_login_creds"
            found.append(
                Finding(
                    code: "K001", path: "",
                    message: "\(client.appID) is a passkey client of \(report.rpID) without \(what) in its draft"))
        }
        for web in report.web where web.inDraft && !web.published {
            found.append(
                Finding(
                    code: "K002", path: "",
                    message: "\(web.origin) is listed for \(report.rpID) and not yet published"))
        }
        return found + tooManyLabels(report.rpID, listed: listed)
    }

    static func ios(
        _ app: AppRecord, rpID: String, draft: AASADocument, published: AASADocument?, probe: ProbeRecord?,
        cdn: CDNStatusRecord?, cdnDocument: AASADocument?
    ) -> Client {
        func lists(_ document: AASADocument?) -> Bool {
            document?.webcredentials?.apps?.contains(app.appID) ?? false
        }
        let inDraft = lists(draft)
        let inPublished = lists(published)
        let atOrigin: Bool? = probe.map { $0.ok && inPublished }
        let atCDN: Bool? = cdn?.revision == nil ? nil : lists(cdnDocument)
        let steps = [
            Step(name: "draft", ok: inDraft, detail: inDraft ? "listed in webcredentials.apps" : "not listed"),
            Step(
                name: "published", ok: inPublished,
                detail: published == nil ? "nothing published" : inPublished ? "listed" : "not listed"),
            Step(
                name: "origin", ok: atOrigin,
                detail: probe.map {
                    $0.ok ? "the last probe found the current revision served" : "the last probe failed"
                }
                    ?? "never probed"),
            Step(
                name: "cdn", ok: atCDN,
                detail: cdn.map {
                    "Apple's CDN serves revision \($0.revision.map(String.init) ?? "none") (\($0.state))"
                }
                    ?? "not checked yet"),
        ]
        let (verdict, fix): (Verdict, String?) =
            if !inDraft {
                (
                    .broken,
                    "give \(app.appID) the webcredentials service and team \(app.teamName)'s grant on \(rpID) "
                        + "webcredentials, then publish \(rpID)"
                )
            } else if !inPublished {
                (.broken, "publish \(rpID): the draft lists \(app.appID) and the published file does not")
            } else if atOrigin == false {
                (.broken, "\(rpID) does not serve its current revision: run the probe and fix what it names")
            } else if atCDN != true {
                (.notYetAtCDN, "wait for Apple's CDN to fetch \(rpID) again (up to two days); nothing to change")
            } else {
                (.ready, nil)
            }
        return Client(
            appID: app.appID, platform: .ios, team: app.teamName, verdict: verdict, fix: fix, steps: steps)
    }

    static func android(
        _ app: AppRecord, host: String, production: Bool, draft: AssetLinksDocument, published: AssetLinksDocument?,
        probe: ProbeRecord?, google: GoogleStatusRecord?
    ) -> Client {
        let release = app.fingerprints.filter { app.keyLabels[$0] != "debug" }
        let debug = app.fingerprints.filter { app.keyLabels[$0] == "debug" }
        /// The keys a file gives get_login_creds for the package.
        func keys(_ document: AssetLinksDocument?) -> Set<String> {
            var found = Set<String>()
            for (_, statement) in document?.statements ?? [] where statement.relations.contains(getLoginCreds) {
                if case .androidApp(let package, let fingerprints) = statement.target, package == app.appID {
                    found.formUnion(fingerprints)
                }
            }
            return found
        }
        func missing(_ document: AssetLinksDocument?) -> [String] { release.filter { !keys(document).contains($0) } }
        let draftMissing = missing(draft)
        let publishedMissing = missing(published)
        let debugPublished = production ? debug.filter { keys(published).contains($0) } : []
        let googleMissing = google.map { status in release.filter { !status.fingerprints.contains($0) } }
        let steps = [
            Step(
                name: "draft", ok: draftMissing.isEmpty,
                detail: draftMissing.isEmpty ? "get_login_creds for every release key" : "missing \(draftMissing)"),
            Step(
                name: "published", ok: publishedMissing.isEmpty && published != nil,
                detail: published == nil
                    ? "no assetlinks.json published"
                    : publishedMissing.isEmpty ? "listed" : "missing \(publishedMissing)"),
            Step(
                name: "origin", ok: probe.map { $0.ok && publishedMissing.isEmpty },
                detail: probe.map {
                    $0.ok ? "the last probe found the current revision served" : "the last probe failed"
                }
                    ?? "never probed"),
            Step(
                name: "google", ok: googleMissing.map(\.isEmpty),
                detail: googleMissing.map { $0.isEmpty ? "Google lists every release key" : "Google lacks \($0)" }
                    ?? "not checked yet"),
        ]
        let (verdict, fix): (Verdict, String?) =
            if !draftMissing.isEmpty {
                (
                    .broken,
                    "give \(app.appID) the webcredentials service and team \(app.teamName)'s grant on \(host) "
                        + "webcredentials, then publish \(host)"
                )
            } else if published == nil || !publishedMissing.isEmpty {
                (
                    .broken,
                    "publish \(host): the draft has get_login_creds for \(app.appID) and the published file does not"
                )
            } else if !debugPublished.isEmpty {
                (.broken, "take the debug key off \(app.appID) on production \(host), then publish")
            } else if probe?.ok == false {
                (.broken, "\(host) does not serve its current revision: run the probe and fix what it names")
            } else if googleMissing?.isEmpty != true {
                (.notYetAtCDN, "wait for Google's Digital Asset Links API to read \(host) again; nothing to change")
            } else {
                (.ready, nil)
            }
        return Client(
            appID: app.appID, platform: .android, team: app.teamName, verdict: verdict, fix: fix, steps: steps)
    }
}
