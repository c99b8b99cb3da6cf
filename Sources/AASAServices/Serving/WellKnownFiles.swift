import AASAKernel
import AASAOutbound
import AASARules
import AASAStore
import Logging

/// The two files this replica serves for each domain, each with its own revision stream:
/// `/.well-known/apple-app-site-association` and `/.well-known/assetlinks.json`.
package final class WellKnownFiles: Sendable {
    package let aasa = ServedFiles()
    package let assetLinks = ServedFiles()

    package init() {}

    /// Both files of every domain, read afresh (start-up, and the follower's safety net).
    package func reloadAll(_ database: Database, logger: Logger) async throws {
        let aasaStart = aasa.beginReload()
        let assetLinksStart = assetLinks.beginReload()
        let (revisions, android) = try await database.read(logger: logger) { session in
            (try await session.servedRevisions(), try await session.servedAssetLinks())
        }
        aasa.replaceAll(revisions, readSince: aasaStart)
        assetLinks.replaceAll(android, readSince: assetLinksStart)
    }

    /// Both files of one domain (by primary host) as the database has them now; a host with no
    /// revision of a file stops serving that file.
    package func refresh(host: String, session: DBSession) async throws {
        let revisions = try await session.servedRevisions(host: host)
        let android = try await session.servedAssetLinks(host: host)
        if revisions.isEmpty { aasa.remove(host: host) }
        for revision in revisions { aasa.update(revision) }
        if android.isEmpty { assetLinks.remove(host: host) }
        for revision in android { assetLinks.update(revision) }
    }

    package func remove(host: String) {
        aasa.remove(host: host)
        assetLinks.remove(host: host)
    }
}
