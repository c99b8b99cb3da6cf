import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation
import Metrics

/// One check of one domain against Google's view, per Android package of its current
/// assetlinks.json: `statements.list` once for the host, `assetlinks.check` per package (with its
/// first certificate), compared with the revision, recorded, and told to the webhooks.
package enum GoogleCheck {
    /// The packages a revision delegates `handle_all_urls` to, each with its fingerprints.
    package static func packages(_ revision: RevisionRecord) -> [(package: String, fingerprints: Set<String>)] {
        var out: [String: Set<String>] = [:]
        for (_, statement) in AssetLinksDocument.parse(revision.bytes).document?.statements ?? [] {
            guard statement.relations.contains(AssetLinksDocument.handleAllURLs),
                case .androidApp(let package, let fingerprints) = statement.target
            else { continue }
            out[package, default: []].formUnion(fingerprints.map { $0.uppercased() })
        }
        return out.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// What one check recorded, and whether Google's API failed for this site (a 5xx, a timeout,
    /// no answer): the monitor then backs this domain off alone.
    package struct Outcome: Sendable {
        package var records: [GoogleStatusRecord] = []
        package var unavailable: String?
    }

    /// Checks and records every package: a failure for this site is recorded as `error` with its
    /// status and Google's message; only `.throttled` (a 429: nothing recorded for the packages not
    /// yet asked) is thrown, so that a monitor pass backs off as a whole.
    @discardableResult
    package static func check(
        _ domain: DomainRecord, api: DigitalAssetLinksAPI, staleAfter: Duration, session: DBSession
    ) async throws -> Outcome {
        guard let current = try await session.currentAssetLinksRevision(domainID: domain.id) else { return Outcome() }
        let packages = packages(current)
        try await session.dropGoogleStatus(domainID: domain.id, keeping: packages.map(\.package))
        guard !packages.isEmpty else { return Outcome() }
        let site = "https://\(domain.host)"
        var outcome = Outcome()
        let listed: Result<[String: Set<String>], DigitalAssetLinksAPI.Failure>
        do {
            listed = .success(try await api.statements(site: site))
        } catch DigitalAssetLinksAPI.Failure.failed(let why) {
            listed = .failure(.failed(why))
        } catch DigitalAssetLinksAPI.Failure.unavailable(let why) {
            listed = .failure(.unavailable(why))
            outcome.unavailable = why
        }
        let before = Dictionary(
            try await session.googleStatus(domainID: domain.id).map { ($0.package, $0) },
            uniquingKeysWith: { a, _ in a })
        for (package, fingerprints) in packages {
            let (state, detail, google, unavailable) = try await judge(
                package: package, fingerprints: fingerprints, listed: listed, site: site, api: api)
            if unavailable { outcome.unavailable = outcome.unavailable ?? detail }
            let after = try await session.recordGoogleCheck(
                domainID: domain.id, package: package, state: state, revision: current.number, detail: detail,
                fingerprints: google.sorted(), before: before[package])
            Counter(label: "aasad_google_checks_total", dimensions: [("state", state)]).increment()
            try await GoogleNotifications.tell(
                domain: domain, before: before[package], after: after, current: current, staleAfter: staleAfter,
                session: session)
            outcome.records.append(after)
        }
        return outcome
    }

    /// The package's state against Google's answers: `stale` when Google lists other keys for it
    /// (those of an older revision, while its cache lasts), `not-linked` when it does not link the
    /// current key at all, `verified` when it does with exactly the current keys.
    private static func judge(
        package: String, fingerprints: Set<String>, listed: Result<[String: Set<String>], DigitalAssetLinksAPI.Failure>,
        site: String, api: DigitalAssetLinksAPI
    ) async throws -> (state: String, detail: String?, google: Set<String>, unavailable: Bool) {
        let google: Set<String>
        switch listed {
        case .success(let statements): google = statements[package] ?? []
        case .failure(let failure): return ("error", failure.description, [], false)
        }
        let check: DigitalAssetLinksAPI.Check
        do {
            check = try await api.check(site: site, package: package, fingerprint: fingerprints.sorted()[0])
        } catch DigitalAssetLinksAPI.Failure.failed(let why) {
            return ("error", why, google, false)
        } catch DigitalAssetLinksAPI.Failure.unavailable(let why) {
            return ("error", why, google, true)
        }
        if !google.isEmpty && google != fingerprints {
            let missing = fingerprints.subtracting(google).count
            let extra = google.subtracting(fingerprints).count
            return (
                "stale",
                "Google lists \(google.count) key(s) for \(package): \(missing) of the current ones missing, \(extra) "
                    + "no longer published", google, false
            )
        }
        guard check.linked else {
            return ("not-linked", check.debugString ?? "Google does not link \(site) to \(package)", google, false)
        }
        return ("verified", nil, google, false)
    }
}

/// What a Google check tells people, once per episode: `google.stale` when Google still lists other
/// keys for a package `staleAfter` after the current revision was published, and `google.converged`
/// when it lists the current ones again after that.
package enum GoogleNotifications {
    package static func tell(
        domain: DomainRecord, before: GoogleStatusRecord?, after: GoogleStatusRecord, current: RevisionRecord,
        staleAfter: Duration, session: DBSession
    ) async throws {
        let notified = after.staleNotified
        func emit(_ name: String, _ text: String, _ extra: JSONObject = [:]) async throws {
            var data: JSONObject = [
                "package": .string(after.package), "state": .string(after.state),
                "assetLinksRevision": .number(String(current.number)),
            ]
            for member in extra { data.append(member.key, member.value) }
            try await session.emitWebhookEvent(
                WebhookEvent(
                    name: name, domain: domain.host, team: nil, actor: "aasad", text: text, data: .object(data)))
        }
        switch after.state {
        case "verified" where notified:
            try await session.setGoogleStaleNotified(domainID: domain.id, package: after.package, false)
            try await emit(
                "google.converged", "Google links \(domain.host) to \(after.package) with the current keys again")
        case "stale" where !notified:
            let lag = Date().timeIntervalSince(current.createdAt)
            guard lag >= Double(staleAfter.components.seconds) else { return }
            try await session.setGoogleStaleNotified(domainID: domain.id, package: after.package, true)
            try await emit(
                "google.stale",
                "Google still lists other keys for \(after.package) on \(domain.host), \(Int(lag / 60)) min after "
                    + "assetlinks.json revision \(current.number) was published",
                ["lagSeconds": .number(String(Int(lag)))])
        default:
            return
        }
    }
}
