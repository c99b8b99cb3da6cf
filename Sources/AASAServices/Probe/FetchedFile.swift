import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// What a fetched file is, against what this service published: the findings, the revision the
/// bytes are (by SHA-256), and, for bytes that are no revision, a semantic diff to the current one.
package struct FileVerdict: Sendable {
    package var findings: [ProbeFinding] = []
    package var revision: Int?
    package var sha256: String?
    package var diff: JSONValue?

    package var ok: Bool { !findings.contains { !$0.code.isWarning } }
}

package enum FetchedFile {
    /// What the fetch itself says, as a verifier that follows no redirect meets it: the findings
    /// (no connection, TLS, timeout, size, redirect, status, `Content-Type`) and the body when there
    /// is one to read. `verifier` names who meets it, and `jsonNote` why `application/json` matters
    /// to it, for the messages.
    private static func transport(_ fetched: Fetched, verifier: String, jsonNote: String, verdict: inout FileVerdict)
        -> [UInt8]?
    {
        func add(_ code: ProbeFinding.Code, _ message: String) {
            verdict.findings.append(ProbeFinding(code: code, message: message))
        }
        switch fetched.failure {
        case .unreachable(let why)?:
            add(.unreachable, "no connection to \(fetched.url): \(why)")
            return nil
        case .tls(let why)?:
            add(.tls, "TLS failed (\(verifier) verifies the certificate): \(why)")
            return nil
        case .timeout?:
            add(.timeout, "no complete answer within the deadline")
            return nil
        case .privateAddress(let host, let address)?:
            add(
                .privateAddress,
                "\(host) resolves to \(address), a loopback, private or link-local address: not fetched "
                    + "(an operator allows it with --probe-allow-private)")
            return nil
        case .tooLarge(let length)?:
            add(
                .tooLarge,
                "the file is \(length.map { "\($0) bytes" } ?? "over 128 KB"); \(verifier) reads at most 131072 bytes")
            return nil
        case nil: break
        }
        guard let status = fetched.status else { return nil }
        if (300..<400).contains(status) {
            add(
                .redirect,
                """
                HTTP \(status) to \(fetched.header("location") ?? "(no Location)"): \(verifier) follows no \
                redirect; serve the file at this URL
                """
            )
            return nil
        }
        guard status == 200 else {
            add(
                .status,
                "HTTP \(status)"
                    + (status == 403
                        ? ": a firewall or WAF may refuse \(verifier) (User-Agent \(fetched.userAgent))" : ""))
            return nil
        }
        let type = fetched.header("content-type") ?? ""
        if !type.lowercased().hasPrefix("application/json") {
            add(.contentType, "Content-Type is \(type.isEmpty ? "absent" : type), not application/json: \(jsonNote)")
        }
        return fetched.bytes ?? []
    }

    private static func lintErrors(_ messages: [String]) -> ProbeFinding? {
        messages.isEmpty
            ? nil
            : ProbeFinding(
                code: .lintErrors, message: "\(messages.count) error(s): " + messages.prefix(5).joined(separator: "; "))
    }

    package static func verdict(_ fetched: Fetched, domain: DomainRecord, current: RevisionRecord?, session: DBSession)
        async throws -> FileVerdict
    {
        var verdict = FileVerdict()
        func add(_ code: ProbeFinding.Code, _ message: String) {
            verdict.findings.append(ProbeFinding(code: code, message: message))
        }
        guard
            let bytes = transport(
                fetched, verifier: "Apple's fetcher", jsonNote: "iOS accepts it, other services may not",
                verdict: &verdict)
        else { return verdict }
        let parsed = AASAParser.parse(bytes)
        guard let document = parsed.document else {
            add(
                .unparseable,
                "not an apple-app-site-association file: \(parsed.diagnostics.first?.message ?? "unreadable")")
            return verdict
        }
        let errors = AASAValidator.validate(
            document, servedByteCount: bytes.count, options: .init(analyzeRules: false, host: domain.host)
        )
        .filter { $0.severity == .error }
        try await judge(
            &verdict, .aasa, bytes: bytes, lint: errors.map { "\($0.code.rawValue) \($0.path): \($0.message)" },
            domain: domain, current: current, session: session
        ) { published in
            (try? AASADocument(json: published)).map {
                DocumentDiff(from: document, to: $0, host: domain.host).jsonValue
            }
        }
        return verdict
    }

    /// What both files' verdicts end with: the lint's errors as one finding, then the served bytes
    /// against the file's revisions.
    private static func judge(
        _ verdict: inout FileVerdict, _ file: PublishedFile, bytes: [UInt8], lint: [String], domain: DomainRecord,
        current: RevisionRecord?, session: DBSession, diff: ([UInt8]) -> JSONValue?
    ) async throws {
        if let finding = lintErrors(lint) { verdict.findings.append(finding) }
        let sha = Hex.sha256(bytes)
        compare(
            &verdict, sha: sha, served: try await file.revisionNumber(session, domainID: domain.id, sha256: sha),
            current: current, label: file == .aasa ? "" : file.name, host: domain.host, diff: diff)
    }

    /// The served bytes against the file's revisions: the current one (no finding), an older one
    /// (P040), none (P041, with the diff served → current), or a file never published (P042).
    /// `label` names the file in the messages ("" for the AASA).
    private static func compare(
        _ verdict: inout FileVerdict, sha: String, served number: Int?, current: RevisionRecord?, label: String,
        host: String, diff: ([UInt8]) -> JSONValue?
    ) {
        verdict.sha256 = sha
        verdict.revision = number
        func add(_ code: ProbeFinding.Code, _ message: String) {
            verdict.findings.append(ProbeFinding(code: code, message: message))
        }
        guard let current else {
            add(
                .notPublished,
                """
                \(host) has no published \(label.isEmpty ? "revision" : label); the origin serves a file this \
                service did not publish
                """
            )
            return
        }
        if number == current.number { return }
        if let number {
            let age = Int(Date().timeIntervalSince(current.createdAt))
            add(
                .staleRevision,
                """
                serves \(label.isEmpty ? "" : label + " ")revision \(number); the current revision is \
                \(current.number), published \(age) s ago
                """
            )
        } else {
            add(
                .unknownBytes,
                """
                serves a file that is no \(label.isEmpty ? "" : label + " ")revision of \(host); see diff (served \
                → current revision \(current.number))
                """
            )
            verdict.diff = diff(current.bytes)
        }
    }

    /// The Android file (`/.well-known/assetlinks.json`): fetched the same way (Google's verifier
    /// follows no redirect either), linted (docs/assetlinks-spec.md) and compared with the domain's
    /// assetlinks.json revisions as the AASA is with its own. A 404 is no finding for a domain
    /// that has no assetlinks.json revision.
    package static func assetLinksVerdict(
        _ fetched: Fetched, domain: DomainRecord, current: RevisionRecord?, session: DBSession
    ) async throws -> FileVerdict {
        if let missing = notServed(
            fetched, .assetLinks, current: current, consequence: "Android cannot verify the app links")
        {
            return missing
        }
        var verdict = FileVerdict()
        guard
            let bytes = transport(
                fetched, verifier: "Android's verifier", jsonNote: "Google asks for it", verdict: &verdict)
        else { return verdict }
        let errors = AssetLinksValidator.validate(bytes).filter { $0.severity == .error }
        if errors.contains(where: { $0.code == .invalidJSON || $0.code == .notAnArray }) {
            verdict.findings.append(
                ProbeFinding(code: .unparseable, message: "not a Digital Asset Links statement list (a JSON array)"))
            return verdict
        }
        try await judge(
            &verdict, .assetLinks, bytes: bytes,
            lint: errors.map { "\($0.code.rawValue) \($0.path): \($0.message)" }, domain: domain, current: current,
            session: session
        ) { published in
            guard let served = AssetLinksDocument.parse(bytes).document,
                let current = AssetLinksDocument.parse(published).document
            else { return nil }
            return AssetLinksDiff(from: served, to: current).jsonValue
        }
        return verdict
    }

    /// `/.well-known/webauthn` (issue 52): fetched the same way (a browser follows no redirect to
    /// another origin), read as `{"origins": [...]}` and compared with the domain's webauthn
    /// revisions. A 404 is no finding for a domain that has no webauthn revision.
    package static func webauthnVerdict(
        _ fetched: Fetched, domain: DomainRecord, current: RevisionRecord?, session: DBSession
    ) async throws -> FileVerdict {
        if let missing = notServed(
            fetched, .webauthn, current: current, consequence: "browsers refuse the related origins' passkeys")
        {
            return missing
        }
        var verdict = FileVerdict()
        guard let bytes = transport(fetched, verifier: "a browser", jsonNote: "WebAuthn asks for it", verdict: &verdict)
        else { return verdict }
        guard RelatedOrigins.parse(bytes) != nil else {
            verdict.findings.append(
                ProbeFinding(code: .unparseable, message: "not a WebAuthn related origins file ({\"origins\": [...]})"))
            return verdict
        }
        try await judge(
            &verdict, .webauthn, bytes: bytes, lint: [], domain: domain, current: current, session: session
        ) { _ in nil }
        return verdict
    }

    /// A 404 for a file beside the AASA: a finding when the domain has a current revision of it,
    /// none when it has never had one; nil for any other answer.
    private static func notServed(
        _ fetched: Fetched, _ file: PublishedFile, current: RevisionRecord?, consequence: String
    ) -> FileVerdict? {
        guard fetched.failure == nil && fetched.status == 404 else { return nil }
        var verdict = FileVerdict()
        if let current {
            verdict.findings.append(
                ProbeFinding(
                    code: .status,
                    message: "HTTP 404: the origin does not serve /.well-known/\(file.name), whose revision "
                        + "\(current.number) is current; \(consequence)"))
        }
        return verdict
    }

    /// The verdict on one fetched file of any of the three kinds.
    package static func verdict(
        _ file: PublishedFile, _ fetched: Fetched, domain: DomainRecord, current: RevisionRecord?, session: DBSession
    ) async throws -> FileVerdict {
        switch file {
        case .aasa: try await verdict(fetched, domain: domain, current: current, session: session)
        case .assetLinks: try await assetLinksVerdict(fetched, domain: domain, current: current, session: session)
        case .webauthn: try await webauthnVerdict(fetched, domain: domain, current: current, session: session)
        }
    }
}
