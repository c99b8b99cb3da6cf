import AASAKernel
import AASAStore

/// Whether a domain's draft would publish something other than what it serves, for each of its
/// two files: the one definition a promotion asks of its sources and of its targets (issue 41: the
/// target's check looked at the AASA alone, so a promotion published someone's unreviewed
/// assetlinks.json change with it).
package struct UnpublishedChanges: Sendable {
    /// The draft as it renders now (not validated: a broken draft is unpublished all the same).
    package var draft: DomainDocument
    package var currentAASA: RevisionRecord?
    package var currentAssetLinks: RevisionRecord?

    /// The AASA's draft differs from its current revision; for a domain never published, when the
    /// draft names any app.
    package var aasa: Bool { currentAASA.map { $0.bytes != draft.bytes } ?? !draft.named.isEmpty }

    /// assetlinks.json's draft differs from its current revision; a domain with nothing for Android
    /// and no file has nothing to publish.
    package var assetLinks: Bool {
        (!draft.android.isEmpty || currentAssetLinks != nil) && currentAssetLinks?.bytes != draft.android.bytes
    }

    package var any: Bool { aasa || assetLinks }

    /// The files with unpublished changes, by their names.
    package var files: [String] {
        (aasa ? ["apple-app-site-association"] : []) + (assetLinks ? ["assetlinks.json"] : [])
    }

    package static func of(_ domain: DomainRecord, session: DBSession) async throws -> UnpublishedChanges {
        UnpublishedChanges(
            draft: try await DomainDocument.render(try await session.snapshot(of: domain)),
            currentAASA: try await session.currentRevision(of: domain),
            currentAssetLinks: try await session.currentAssetLinksRevision(domainID: domain.id))
    }
}
