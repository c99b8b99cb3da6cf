import AASAModel
import AASAStore

/// Which of a domain's three published files: everything publishing, rollback and reconciliation do
/// differently for one and the other, so that each of them is written once and takes the file as data.
package enum PublishedFile: Sendable, CaseIterable {
    case aasa
    case assetLinks
    /// WebAuthn's Related Origin Requests (issue 52): the other web origins that may use the
    /// domain as their relying party ID.
    case webauthn

    /// The file's name under `.well-known`.
    package var name: String {
        switch self {
        case .aasa: "apple-app-site-association"
        case .assetLinks: "assetlinks.json"
        case .webauthn: "webauthn"
        }
    }

    /// The audit action of a new revision: `domain.publish`, `assetlinks.rollback`, …
    package func action(rollback: Bool) -> String {
        switch self {
        case .aasa: rollback ? "domain.rollback" : "domain.publish"
        case .assetLinks: rollback ? "assetlinks.rollback" : "assetlinks.publish"
        case .webauthn: rollback ? "webauthn.rollback" : "webauthn.publish"
        }
    }

    package var entityType: String {
        switch self {
        case .aasa: "revision"
        case .assetLinks: "assetlinks-revision"
        case .webauthn: "webauthn-revision"
        }
    }

    /// How the file's revisions are named in an error ("revision 3", "assetlinks.json revision 3").
    package func revisionName(_ number: Int) -> String {
        switch self {
        case .aasa: "revision \(number)"
        case .assetLinks, .webauthn: "\(name) revision \(number)"
        }
    }

    /// The file's own revision table, for the two beside the AASA's.
    package var stream: RevisionStream? {
        switch self {
        case .aasa: nil
        case .assetLinks: .assetLinks
        case .webauthn: .webauthn
        }
    }

    package func current(_ session: DBSession, domain: DomainRecord) async throws -> RevisionRecord? {
        guard let stream else { return try await session.currentRevision(of: domain) }
        return try await session.currentFileRevision(stream, domainID: domain.id)
    }

    package func revision(_ session: DBSession, domainID: Int64, number: Int) async throws -> RevisionRecord? {
        guard let stream else { return try await session.revision(domainID: domainID, number: number) }
        return try await session.fileRevision(stream, domainID: domainID, number: number)
    }

    /// A page of the file's revisions, newest first, older than `before` when given.
    package func revisions(_ session: DBSession, domainID: Int64, before: Int?, limit: Int) async throws
        -> [RevisionRecord]
    {
        guard let stream else {
            return try await session.listRevisions(domainID: domainID, before: before, limit: limit)
        }
        return try await session.listFileRevisions(stream, domainID: domainID, before: before, limit: limit)
    }

    /// The newest revision of the file with these bytes (by SHA-256), nil when none has them.
    package func revisionNumber(_ session: DBSession, domainID: Int64, sha256: String) async throws -> Int? {
        guard let stream else { return try await session.revisionNumber(domainID: domainID, sha256: sha256) }
        return try await session.fileRevisionNumber(stream, domainID: domainID, sha256: sha256)
    }

    package func insert(_ session: DBSession, _ record: RevisionRecord) async throws {
        guard let stream else { return try await session.insertRevision(record) }
        try await session.insertFileRevision(stream, record)
    }

    /// What changed between two revisions, stored with the new one (the AASA's semantic diff; an
    /// assetlinks.json revision is diffed on request instead).
    package func diff(from old: [UInt8], to new: [UInt8], host: String) -> JSONValue? {
        guard self == .aasa, let before = try? AASADocument(json: old), let after = try? AASADocument(json: new) else {
            return nil
        }
        return DocumentDiff(from: before, to: after, host: host).jsonValue
    }

    /// The reconciliation audit's entity and the key its revision number goes under (kept as they
    /// were when each file had its own reconciliation, so old and new audit rows read alike).
    package func reconcileEntity(root: String) -> (id: String, revisionKey: String) {
        switch self {
        case .aasa: (root, "revision")
        case .assetLinks: (root + "/.well-known/" + name, "assetLinksRevision")
        case .webauthn: (root + "/.well-known/" + name, "webauthnRevision")
        }
    }
}
