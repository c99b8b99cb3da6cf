import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// The origins a relying party's passkey server must accept (issue 52): the RP ID's own web
/// origin, every related origin its `/.well-known/webauthn` draft lists, and one
/// `android:apk-key-hash:` per signing key of each Android app marked as its client, except keys
/// the team labelled `debug` (a debug build never signs in on production). WebAuthn server
/// libraries compare origins as strings; these are in their exact form.
package struct PasskeyOrigin: Sendable, Equatable {
    package enum Kind: String, Sendable { case web, android }
    package var origin: String
    package var kind: Kind
    /// Why it is listed: `relying party`, `related origin`, or the app and its key's label.
    package var source: String
    package var appID: String?
}

package enum PasskeyOrigins {
    /// The RP ID's origins, web first, each kind sorted.
    package static func of(_ rpID: String, session: DBSession) async throws -> [PasskeyOrigin] {
        var web = [PasskeyOrigin(origin: "https://" + rpID, kind: .web, source: "relying party")]
        if let domain = try await session.domain(host: rpID) {
            for related in try await session.relatedOrigins(domainID: domain.id)
            where related.origin != web[0].origin {
                web.append(PasskeyOrigin(origin: related.origin, kind: .web, source: "related origin"))
            }
        }
        var android: [PasskeyOrigin] = []
        for appID in try await session.passkeyClientAppIDs(rpID: rpID) {
            guard let app = try await session.app(appID: appID), app.platform == .android else { continue }
            for fingerprint in app.fingerprints where app.keyLabels[fingerprint] != "debug" {
                guard let origin = AndroidOrigin.of(fingerprint: fingerprint),
                    !android.contains(where: { $0.origin == origin })
                else { continue }
                let label = app.keyLabels[fingerprint].map { " (\($0) key)" } ?? ""
                android.append(PasskeyOrigin(origin: origin, kind: .android, source: appID + label, appID: appID))
            }
        }
        return web + android.sorted { ($0.appID ?? "", $0.origin) < ($1.appID ?? "", $1.origin) }
    }

    /// In the transaction of a change: for each relying party whose origins differ from those last
    /// announced, records the new list with a `passkeys.origins-changed` audit event (which raises
    /// the webhook of that name), so the passkey server's owner hears of a rotated key from the
    /// change that rotated it. Cheap when there is nothing to compare: one query.
    package static func announceChanges(_ session: DBSession, actor: Actor) async throws {
        for rpID in try await session.relyingPartiesWithOrigins() {
            let origins = try await of(rpID, session: session).map(\.origin)
            let before = try await session.announcedOrigins(rpID: rpID, forUpdate: true)
            guard before != origins else { continue }
            try await session.recordAnnouncedOrigins(rpID: rpID, origins)
            let isDomain = try await session.domain(host: rpID) != nil
            try await session.appendAudit(
                AuditEntry(
                    action: "passkeys.origins-changed", entityType: "relying-party", entityID: rpID,
                    domain: isDomain ? rpID : nil, before: before.map { .array($0.map { .string($0) }) },
                    after: .array(origins.map { .string($0) })
                ).record(by: actor))
        }
    }
}
