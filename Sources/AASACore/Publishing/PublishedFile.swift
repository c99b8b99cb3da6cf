import AASAModel
import AASAStore

/// Which of a domain's two published files: everything publishing, rollback and reconciliation do
/// differently for one and the other, so that each of them is written once and takes the file as data.
package enum PublishedFile: Sendable, CaseIterable {
    case aasa
    case assetLinks

    /// The file's name under `.well-known`.
    package var name: String {
        switch self {
        case .aasa: WebRootWriter.fileName
        case .assetLinks: WebRootWriter.assetLinksName
        }
    }

    /// The audit action of a new revision: `domain.publish`, `assetlinks.rollback`, …
    package func action(rollback: Bool) -> String {
        switch self {
        case .aasa: rollback ? "domain.rollback" : "domain.publish"
        case .assetLinks: rollback ? "assetlinks.rollback" : "assetlinks.publish"
        }
    }

    package var entityType: String {
        switch self {
        case .aasa: "revision"
        case .assetLinks: "assetlinks-revision"
        }
    }

    /// How the file's revisions are named in an error ("revision 3", "assetlinks.json revision 3").
    package func revisionName(_ number: Int) -> String {
        switch self {
        case .aasa: "revision \(number)"
        case .assetLinks: "assetlinks.json revision \(number)"
        }
    }

    package func current(_ session: DBSession, domain: DomainRecord) async throws -> RevisionRecord? {
        switch self {
        case .aasa: try await session.currentRevision(of: domain)
        case .assetLinks: try await session.currentAssetLinksRevision(domainID: domain.id)
        }
    }

    package func revision(_ session: DBSession, domainID: Int64, number: Int) async throws -> RevisionRecord? {
        switch self {
        case .aasa: try await session.revision(domainID: domainID, number: number)
        case .assetLinks: try await session.assetLinksRevision(domainID: domainID, number: number)
        }
    }

    package func insert(_ session: DBSession, _ record: RevisionRecord) async throws {
        switch self {
        case .aasa: try await session.insertRevision(record)
        case .assetLinks: try await session.insertAssetLinksRevision(record)
        }
    }

    /// What changed between two revisions, stored with the new one (the AASA's semantic diff; an
    /// assetlinks.json revision is diffed on request instead).
    package func diff(from old: [UInt8], to new: [UInt8], host: String) -> JSONValue? {
        guard self == .aasa, let before = try? AASADocument(json: old), let after = try? AASADocument(json: new) else {
            return nil
        }
        return DocumentDiff(from: before, to: after, host: host).jsonValue
    }

    /// This replica's served copy of the file.
    package func served(in files: WellKnownFiles) -> ServedFiles {
        switch self {
        case .aasa: files.aasa
        case .assetLinks: files.assetLinks
        }
    }

    /// Writes the file into one web root (and, for a legacy AASA domain, the root itself); the paths written.
    package func write(_ bytes: [UInt8], root: String, domain: DomainRecord, bases: [String]) throws -> [String] {
        switch self {
        case .aasa: try WebRootWriter.write(bytes, root: root, legacy: domain.legacyRootPath, bases: bases)
        case .assetLinks: [try WebRootWriter.writeAssetLinks(bytes, root: root, bases: bases)]
        }
    }

    /// Every copy of the file the web root should hold, as it is on disk (nil: missing).
    package func copiesOnDisk(root: String, domain: DomainRecord) -> [[UInt8]?] {
        var copies = [WebRootWriter.read(root: root, name: name)]
        if self == .aasa && domain.legacyRootPath { copies.append(WebRootWriter.readRoot(root: root, name: name)) }
        return copies
    }

    /// The reconciliation audit's entity and the key its revision number goes under (kept as they
    /// were when each file had its own reconciliation, so old and new audit rows read alike).
    package func reconcileEntity(root: String) -> (id: String, revisionKey: String) {
        switch self {
        case .aasa: (root, "revision")
        case .assetLinks: (root + "/.well-known/" + name, "assetLinksRevision")
        }
    }

    /// Refuses a rollback to `old` that today's grants, apps or the acting team's reach do not allow.
    package func checkRollback(
        _ session: DBSession, domain: DomainRecord, old: RevisionRecord, current: RevisionRecord?, team: String?
    ) async throws {
        switch self {
        case .aasa:
            try await RollbackBounds.check(
                session, domain: domain, number: old.number, bytes: old.bytes, current: current, team: team)
        case .assetLinks:
            try await AssetLinksRollbackBounds.check(old.bytes, number: old.number, domain: domain, session: session)
            if let team {
                try await AssetLinksRollbackBounds.checkOwnPart(
                    old: old.bytes, current: current?.bytes ?? [], number: old.number, team: team, session: session)
            }
        }
    }

    /// What the domain policies judge for a rollback of this file to `old`: the old file, beside
    /// the other file as it is today.
    package func rollbackCandidate(
        _ session: DBSession, domain: DomainRecord, old: RevisionRecord, actor: Actor
    ) async throws -> PolicyCandidate {
        switch self {
        case .aasa:
            PolicyCandidate(
                stage: .publish(rollbackOf: old.number), action: action(rollback: true), domain: domain,
                document: nil, bytes: old.bytes, actor: actor)
        case .assetLinks:
            PolicyCandidate(
                stage: .publish(rollbackOf: old.number), action: action(rollback: true), domain: domain,
                document: nil, bytes: try await session.currentRevision(of: domain)?.bytes ?? [], actor: actor,
                assetLinks: old.bytes)
        }
    }
}
