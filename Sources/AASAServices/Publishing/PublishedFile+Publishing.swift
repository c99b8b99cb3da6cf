import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore

/// Where a published file goes and what may replace it: web roots, the served copy, rollbacks.
extension PublishedFile {
    /// This replica's served copy of the file.
    package func served(in files: WellKnownFiles) -> ServedFiles {
        switch self {
        case .aasa: files.aasa
        case .assetLinks: files.assetLinks
        case .webauthn: files.webauthn
        }
    }

    /// Writes the file into one web root (and, for a legacy AASA domain, the root itself); the paths written.
    package func write(_ bytes: [UInt8], root: String, domain: DomainRecord, bases: [String]) throws -> [String] {
        switch self {
        case .aasa: try WebRootWriter.write(bytes, root: root, legacy: domain.legacyRootPath, bases: bases)
        case .assetLinks, .webauthn: [try WebRootWriter.writeWellKnown(name, bytes, root: root, bases: bases)]
        }
    }

    /// Every copy of the file the web root should hold, as it is on disk (nil: missing).
    package func copiesOnDisk(root: String, domain: DomainRecord) -> [[UInt8]?] {
        var copies = [WebRootWriter.read(root: root, name: name)]
        if self == .aasa && domain.legacyRootPath { copies.append(WebRootWriter.readRoot(root: root, name: name)) }
        return copies
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
        case .webauthn:
            try await RelatedOriginsRollbackBounds.check(
                old.bytes, number: old.number, domain: domain, current: current, team: team, session: session)
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
        case .webauthn:
            // The origins file carries no rules: the policies judge the AASA as it is today.
            PolicyCandidate(
                stage: .publish(rollbackOf: old.number), action: action(rollback: true), domain: domain,
                document: nil, bytes: try await session.currentRevision(of: domain)?.bytes ?? [], actor: actor)
        }
    }
}
