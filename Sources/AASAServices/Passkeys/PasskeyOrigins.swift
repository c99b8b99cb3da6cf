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
        origins(rpID, try await session.passkeyOriginInputs())
    }

    /// The one way the list is made, for the export and the announcement alike.
    static func origins(_ rpID: String, _ inputs: PasskeyOriginInputs) -> [PasskeyOrigin] {
        let own = "https://" + rpID
        var web = [PasskeyOrigin(origin: own, kind: .web, source: "relying party")]
        for origin in inputs.related[rpID] ?? [] where origin != own {
            web.append(PasskeyOrigin(origin: origin, kind: .web, source: "related origin"))
        }
        var android: [PasskeyOrigin] = []
        for app in inputs.android[rpID] ?? [] {
            for fingerprint in app.fingerprints where app.keyLabels[fingerprint] != "debug" {
                guard let origin = AndroidOrigin.of(fingerprint: fingerprint),
                    !android.contains(where: { $0.origin == origin })
                else { continue }
                let label = app.keyLabels[fingerprint].map { " (\($0) key)" } ?? ""
                android.append(
                    PasskeyOrigin(origin: origin, kind: .android, source: app.appID + label, appID: app.appID))
            }
        }
        return web + android.sorted { ($0.appID ?? "", $0.origin) < ($1.appID ?? "", $1.origin) }
    }

    /// In the transaction of a change: for each relying party whose origins differ from those last
    /// announced, records the new list with a `passkeys.origins-changed` audit event (which raises
    /// the webhook of that name), so the passkey server's owner hears of a rotated key from the
    /// change that rotated it. One read where no passkey is set up; else five whatever the number of
    /// relying parties, and a write only for a list that moved; two changes at once announce it once
    /// (the conditional upsert).
    package static func announceChanges(_ session: DBSession, actor: Actor) async throws {
        guard try await session.hasPasskeyState() else { return }
        let inputs = try await session.passkeyOriginInputs()
        let announced = try await session.announcedOriginSets()
        let relyingParties = Set(inputs.relyingParties).union(inputs.related.keys)
        for rpID in relyingParties.sorted() {
            let origins = origins(rpID, inputs).map(\.origin)
            let before = announced[rpID]
            guard before != origins, try await session.recordAnnouncedOrigins(rpID: rpID, origins) else { continue }
            var isDomain = inputs.related[rpID] != nil
            if !isDomain { isDomain = try await session.domain(host: rpID) != nil }
            try await session.appendAudit(
                AuditEntry(
                    action: "passkeys.origins-changed", entityType: "relying-party", entityID: rpID,
                    domain: isDomain ? rpID : nil, before: before.map { .array($0.map { .string($0) }) },
                    after: .array(origins.map { .string($0) })
                ).record(by: actor))
        }
    }
}
