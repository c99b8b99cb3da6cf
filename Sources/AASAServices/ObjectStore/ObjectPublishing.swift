import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation
import Logging
import Metrics

/// Publishing a domain's files to its object-store and purge targets, after the revisions are
/// committed and the web roots written, in the order the issue asks: at each bucket
/// `assetlinks.json`, then the AASA, then the legacy root copy; then a HEAD of each object (size,
/// checksum, content type); then every purge; then the edge, fetched as Apple's fetcher does.
/// Each step's outcome is kept per target; a failure fires `publish.target-failed`, as a web root's does.
package struct ObjectPublishing: Sendable {
    package let credentials: CredentialSets
    package let http: ObjectStoreHTTP
    /// The probe's fetcher, for the edge check (nil: not checked).
    package let edge: OutboundClient?

    package init(credentials: CredentialSets, http: ObjectStoreHTTP, edge: OutboundClient?) {
        self.credentials = credentials
        self.http = http
        self.edge = edge
    }

    /// A file at its revision, as publishing hands it over.
    package typealias File = (file: PublishedFile, revision: RevisionRecord)

    /// Every target of the domain in its order, then the edge. `only` limits the writing to the
    /// targets named (reconciliation rewrites one bucket; its purges run again).
    package func publish(
        _ session: DBSession, domain: DomainRecord, files: [File], specs: [TargetSpec], webRootsOK: Bool,
        only: Set<String>? = nil
    ) async -> [ObjectOutcome] {
        // assetlinks.json and webauthn first: an AASA never points at apps whose other files are not out yet.
        let ordered = files.sorted { $0.file.objectOrder < $1.file.objectOrder }
        var outcomes: [ObjectOutcome] = []
        for spec in specs where spec.kind == .s3 && (only?.contains(spec.name ?? "") ?? true) {
            outcomes.append(await write(spec, domain: domain, files: ordered))
        }
        let written = webRootsOK && outcomes.allSatisfy(\.ok)
        for spec in specs where spec.kind == .purge {
            outcomes.append(await purge(spec, domain: domain, files: ordered, written: written))
        }
        var fetched: [String: [ObjectOutcome.Edge]] = [:]
        for k in outcomes.indices {
            guard let spec = specs.first(where: { $0.name == outcomes[k].target }) else { continue }
            let base = spec.publicURL ?? "https://\(domain.host)"
            if fetched[base] == nil {
                fetched[base] = await checkEdge(session, base: base, domain: domain, files: files)
            }
            outcomes[k].edge = fetched[base] ?? []
        }
        for outcome in outcomes {
            await record(session, domain: domain, outcome: outcome)
        }
        return outcomes
    }

    private func write(_ spec: TargetSpec, domain: DomainRecord, files: [File]) async -> ObjectOutcome {
        var outcome = ObjectOutcome(target: spec.name ?? "", kind: "s3")
        note(&outcome, files)
        let bucket: S3Bucket
        do {
            bucket = try await self.bucket(spec)
        } catch {
            return failed(outcome, String(describing: error))
        }
        let objects = self.objects(spec, domain: domain, files: files)
        for object in objects {
            do {
                try await bucket.put(key: object.key, bytes: object.bytes, revision: object.revision)
                outcome.steps.append(.init(step: "written", file: object.file.name, key: object.key, ok: true))
            } catch {
                outcome.steps.append(
                    .init(
                        step: "written", file: object.file.name, key: object.key, ok: false,
                        error: String(describing: error)))
                return failed(outcome, "\(object.key) was not written: \(error)")
            }
        }
        for object in objects {
            var problem: String?
            do {
                problem = try await mismatch(bucket, key: object.key, bytes: object.bytes)
            } catch {
                problem = String(describing: error)
            }
            outcome.steps.append(
                .init(step: "verified", file: object.file.name, key: object.key, ok: problem == nil, error: problem))
            if let problem { return failed(outcome, "\(object.key) does not read back as written: \(problem)") }
        }
        return outcome
    }

    /// The bucket a target names, signed with its credential set's keys.
    func bucket(_ spec: TargetSpec) async throws -> S3Bucket {
        S3Bucket(
            spec: spec, keys: try await credentials.awsKeys(spec.credentials ?? "", region: spec.region ?? ""),
            http: http)
    }

    /// Every object a bucket holds for these files, in the order they are written: each file under
    /// `.well-known`, then the AASA's legacy root copy for a domain that asks for it.
    func objects(_ spec: TargetSpec, domain: DomainRecord, files: [File]) -> [(
        key: String, file: PublishedFile, bytes: [UInt8], revision: Int
    )] {
        var objects = files.map { (spec.key($0.file), $0.file, $0.revision.bytes, $0.revision.number) }
        if domain.legacyRootPath, let aasa = files.first(where: { $0.file == .aasa }) {
            objects.append((spec.legacyKey, .aasa, aasa.revision.bytes, aasa.revision.number))
        }
        return objects
    }

    /// What is wrong with one object read back with HEAD against the bytes it should hold; nil
    /// when it is there as written.
    func mismatch(_ bucket: S3Bucket, key: String, bytes: [UInt8]) async throws -> String? {
        guard let head = try await bucket.head(key: key) else { return "\(key) is missing" }
        let differences = S3Bucket.differences(head, bytes: bytes)
        return differences.isEmpty ? nil : "\(key): " + differences.joined(separator: "; ")
    }

    private func purge(_ spec: TargetSpec, domain: DomainRecord, files: [File], written: Bool) async -> ObjectOutcome {
        var outcome = ObjectOutcome(target: spec.name ?? "", kind: "purge")
        note(&outcome, files)
        guard written else {
            outcome.steps.append(.init(step: "purged", ok: false, error: "not purged: a write before it failed"))
            return failed(outcome, "not purged: a write before it failed (the CDN keeps the files it has)")
        }
        var paths = files.map { "/.well-known/" + $0.file.name }
        if domain.legacyRootPath && files.contains(where: { $0.file == .aasa }) {
            paths.append("/apple-app-site-association")
        }
        // The URLs a CDN caches are the host's and its aliases' (the public URL is where the edge is checked).
        let bases = ([domain.host] + domain.aliases).map { "https://\($0)" }
        let reference =
            "aasad-\(domain.host)-"
            + files.map { "\($0.file.name)-\($0.revision.number)" }.joined(
                separator: "-") + "-\(UUID().uuidString.prefix(8))"
        do {
            let id = try await Purge(spec: spec, credentials: credentials, http: http).run(
                paths: paths, bases: bases, reference: reference)
            outcome.steps.append(.init(step: "purged", key: id, ok: true))
        } catch {
            outcome.steps.append(.init(step: "purged", ok: false, error: String(describing: error)))
            return failed(outcome, String(describing: error))
        }
        return outcome
    }

    /// Each published file fetched from `base`, judged by the probe's rules against its revision.
    private func checkEdge(_ session: DBSession, base: String, domain: DomainRecord, files: [File]) async
        -> [ObjectOutcome.Edge]
    {
        guard let edge else { return [] }
        let root = base.hasSuffix("/") ? String(base.dropLast()) : base
        var out: [ObjectOutcome.Edge] = []
        for (file, revision) in files {
            let url = root + "/.well-known/" + file.name
            let fetched = await edge.fetch(url)
            let verdict = try? await FetchedFile.verdict(
                file, fetched, domain: domain, current: revision, session: session)
            let findings = (verdict?.findings ?? []).map {
                ObjectOutcome.Edge.Finding(code: $0.code.name, message: $0.message)
            }
            out.append(
                ObjectOutcome.Edge(
                    url: url, file: file.name, servesRevision: verdict?.revision == revision.number && findings.isEmpty,
                    revision: verdict?.revision, expected: revision.number, findings: findings))
        }
        return out
    }

    private func note(_ outcome: inout ObjectOutcome, _ files: [File]) {
        outcome.revision = files.first { $0.file == .aasa }?.revision.number
        outcome.assetLinksRevision = files.first { $0.file == .assetLinks }?.revision.number
    }

    private func failed(_ outcome: ObjectOutcome, _ error: String) -> ObjectOutcome {
        var outcome = outcome
        outcome.ok = false
        outcome.error = error
        return outcome
    }

    /// Keeps the outcome; a failure is logged, counted and told to the webhooks as a web root's is.
    private func record(_ session: DBSession, domain: DomainRecord, outcome: ObjectOutcome) async {
        try? await session.recordObjectOutcome(
            domainID: domain.id, target: outcome.target, ok: outcome.ok, outcome: outcome.jsonText)
        guard !outcome.ok else { return }
        session.logger.error(
            "publishing to a target failed",
            metadata: [
                "host": .string(domain.host), "target": .string(outcome.target),
                "error": .string(outcome.error ?? ""),
            ])
        Counter(label: "aasad_publish_target_failures_total").increment()
        try? await session.emitWebhookEvent(
            WebhookEvent(
                name: "publish.target-failed", domain: domain.host, team: nil, actor: "aasad",
                text: "\(domain.host) could not be published to \(outcome.target)",
                data: .object([
                    "target": .string(outcome.target),
                    "revision": .number(String(outcome.revision ?? outcome.assetLinksRevision ?? 0)),
                    "error": .string(outcome.error ?? ""),
                ])))
    }
}

extension ObjectOutcome {
    package var jsonText: String { StoredJSON.encode(self) }

    package static func decode(_ text: String) -> ObjectOutcome? { StoredJSON.decode(ObjectOutcome.self, text) }
}

extension PublishedFile {
    /// The order a bucket is written in: the AASA last.
    fileprivate var objectOrder: Int {
        switch self {
        case .assetLinks: 0
        case .webauthn: 1
        case .aasa: 2
        }
    }
}
