import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// What a CDN check tells people, once per episode:
/// - `cdn.stale`: Apple's CDN still serves an older revision (or none) more than `staleAfter`
///   after the current one was published (49 h by default: past Apple's 48 h cache, a real
///   problem rather than a cache doing its job);
/// - `cdn.converged`: it caught up after a `cdn.stale`;
/// - `cdn.error`: the CDN's answer turned into an error (a blocking finding, or no answer).
package enum CDNNotifications {
    package static func tell(
        domain: DomainRecord, before: CDNStatusRecord?, after: CDNStatusRecord, current: RevisionRecord?,
        staleAfter: Duration, session: DBSession
    ) async throws {
        let notified = after.staleNotified
        let host = domain.host
        func emit(_ name: String, _ text: String, _ data: JSONObject = [:]) async throws {
            var data = data
            data.append("state", .string(after.state))
            if let revision = after.revision { data.append("cdnRevision", .number(String(revision))) }
            if let current { data.append("currentRevision", .number(String(current.number))) }
            try await session.emitWebhookEvent(
                WebhookEvent(name: name, domain: host, team: nil, actor: "aasad", text: text, data: .object(data)))
        }
        switch after.state {
        case "converged" where notified:
            try await session.setCDNStaleNotified(domainID: domain.id, false)
            try await emit("cdn.converged", "Apple's CDN serves the current revision of \(host) again")
        case "stale", "absent":
            guard !notified, let current else { return }
            let lag = Date().timeIntervalSince(current.createdAt)
            guard lag >= Double(staleAfter.components.seconds) else { return }
            try await session.setCDNStaleNotified(domainID: domain.id, true)
            let hours = Int(lag / 3600)
            let serving =
                after.revision.map { "revision \($0)" } ?? (after.state == "absent" ? "no file" : "other bytes")
            try await emit(
                "cdn.stale",
                "Apple's CDN still serves \(serving) for \(host), \(hours) h after revision \(current.number) was "
                    + "published", ["lagSeconds": .number(String(Int(lag)))])
        case "error" where before?.state != "error":
            try await emit("cdn.error", "Apple's CDN answer for \(host) is an error: \(after.detail ?? "no answer")")
        default:
            return
        }
    }
}
