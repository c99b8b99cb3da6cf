import AASAKernel
import AASAOutbound
import AASARules
import AASAStore
import Logging

/// The files this replica serves for each domain, each with its own revision stream:
/// `/.well-known/apple-app-site-association`, `/.well-known/assetlinks.json` and
/// `/.well-known/webauthn`.
package final class WellKnownFiles: Sendable {
    package let aasa = ServedFiles()
    package let assetLinks = ServedFiles()
    package let webauthn = ServedFiles()

    package init() {}

    /// Each file of every domain, read afresh (start-up, and the follower's safety net).
    package func reloadAll(_ database: Database, logger: Logger) async throws {
        let starts = (aasa.beginReload(), assetLinks.beginReload(), webauthn.beginReload())
        let (revisions, android, origins) = try await database.read(logger: logger) { session in
            (
                try await session.servedRevisions(), try await session.servedAssetLinks(),
                try await session.servedFiles(.webauthn)
            )
        }
        aasa.replaceAll(revisions, readSince: starts.0)
        assetLinks.replaceAll(android, readSince: starts.1)
        webauthn.replaceAll(origins, readSince: starts.2)
    }

    /// Each file of one domain (by primary host) as the database has them now; a host with no
    /// revision of a file stops serving that file.
    package func refresh(host: String, session: DBSession) async throws {
        let revisions = try await session.servedRevisions(host: host)
        if revisions.isEmpty { aasa.remove(host: host) }
        for revision in revisions { aasa.update(revision) }
        for file in PublishedFile.allCases {
            guard let stream = file.stream else { continue }  // the AASA, above
            let files = file.served(in: self)
            let current = try await session.servedFiles(stream, host: host)
            if current.isEmpty { files.remove(host: host) }
            for revision in current { files.update(revision) }
        }
    }

    package func remove(host: String) {
        aasa.remove(host: host)
        assetLinks.remove(host: host)
        webauthn.remove(host: host)
    }
}
