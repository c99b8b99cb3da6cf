import AASAModel
import AASAStore
import Foundation

/// What a fetched file is, against what this service published: the findings, the revision the
/// bytes are (by SHA-256), and, for bytes that are no revision, a semantic diff to the current one.
struct FileVerdict: Sendable {
    var findings: [ProbeFinding] = []
    var revision: Int?
    var sha256: String?
    var diff: JSONValue?

    var ok: Bool { !findings.contains { !$0.code.isWarning } }
}

enum FetchedFile {
    static func verdict(_ fetched: Fetched, domain: DomainRecord, current: RevisionRecord?, session: DBSession) async throws -> FileVerdict {
        var verdict = FileVerdict()
        func add(_ code: ProbeFinding.Code, _ message: String) { verdict.findings.append(ProbeFinding(code: code, message: message)) }
        switch fetched.failure {
        case .unreachable(let why)?: add(.unreachable, "no connection to \(fetched.url): \(why)"); return verdict
        case .tls(let why)?: add(.tls, "TLS failed (Apple's fetcher verifies the certificate): \(why)"); return verdict
        case .timeout?: add(.timeout, "no complete answer within the deadline"); return verdict
        case .tooLarge(let length)?:
            add(.tooLarge, "the file is \(length.map { "\($0) bytes" } ?? "over 128 KB"); Apple reads at most 131072 bytes")
            return verdict
        case nil: break
        }
        guard let status = fetched.status else { return verdict }
        if (300..<400).contains(status) {
            add(.redirect, "HTTP \(status) to \(fetched.header("location") ?? "(no Location)"): Apple's fetcher follows no redirect; serve the file at this URL")
            return verdict
        }
        guard status == 200 else {
            add(.status, "HTTP \(status)" + (status == 403 ? ": a firewall or WAF may refuse Apple's fetcher (User-Agent AASA-Bot)" : ""))
            return verdict
        }
        let type = fetched.header("content-type") ?? ""
        if !type.lowercased().hasPrefix("application/json") {
            add(.contentType, "Content-Type is \(type.isEmpty ? "absent" : type), not application/json: iOS accepts it, other services may not")
        }
        let bytes = fetched.bytes ?? []
        let parsed = AASAParser.parse(bytes)
        guard let document = parsed.document else {
            add(.unparseable, "not an apple-app-site-association file: \(parsed.diagnostics.first?.message ?? "unreadable")")
            return verdict
        }
        let errors = AASAValidator.validate(document, servedByteCount: bytes.count, options: .init(analyzeRules: false, host: domain.host))
            .filter { $0.severity == .error }
        if !errors.isEmpty {
            add(.lintErrors, "\(errors.count) error(s): " + errors.prefix(5).map { "\($0.code.rawValue) \($0.path): \($0.message)" }.joined(separator: "; "))
        }
        let sha = Hex.sha256(bytes)
        verdict.sha256 = sha
        verdict.revision = try await session.revisionNumber(domainID: domain.id, sha256: sha)
        guard let current else {
            add(.notPublished, "\(domain.host) has no published revision; the origin serves a file this service did not publish")
            return verdict
        }
        if verdict.revision == current.number { return verdict }
        let age = Int(Date().timeIntervalSince(current.createdAt))
        if let number = verdict.revision {
            add(.staleRevision, "serves revision \(number); the current revision is \(current.number), published \(age) s ago")
        } else {
            add(.unknownBytes, "serves a file that is no revision of \(domain.host); see diff (served → current revision \(current.number))")
            if let published = try? AASADocument(json: current.bytes) {
                verdict.diff = DocumentDiff(from: document, to: published, host: domain.host).jsonValue
            }
        }
        return verdict
    }

    /// The Android file (`/.well-known/assetlinks.json`), which this service does not publish yet:
    /// fetched the same way (Google's verifier follows no redirect either) and linted
    /// (docs/assetlinks-spec.md). A 404 is no finding: a domain without Android apps has none.
    static func assetLinksVerdict(_ fetched: Fetched) -> FileVerdict {
        var verdict = FileVerdict()
        func add(_ code: ProbeFinding.Code, _ message: String) { verdict.findings.append(ProbeFinding(code: code, message: message)) }
        switch fetched.failure {
        case .unreachable(let why)?: add(.unreachable, "no connection to \(fetched.url): \(why)"); return verdict
        case .tls(let why)?: add(.tls, "TLS failed: \(why)"); return verdict
        case .timeout?: add(.timeout, "no complete answer within the deadline"); return verdict
        case .tooLarge?: add(.tooLarge, "over 128 KB"); return verdict
        case nil: break
        }
        guard let status = fetched.status, status != 404 else { return verdict }
        if (300..<400).contains(status) {
            add(.redirect, "HTTP \(status) to \(fetched.header("location") ?? "(no Location)"): Android's verifier follows no redirect")
            return verdict
        }
        guard status == 200 else { add(.status, "HTTP \(status)"); return verdict }
        if !(fetched.header("content-type") ?? "").lowercased().hasPrefix("application/json") {
            add(.contentType, "Content-Type is \(fetched.header("content-type") ?? "absent"), not application/json, which Google asks for")
        }
        let bytes = fetched.bytes ?? []
        guard AssetLinksDocument.parse(bytes).document != nil else {
            add(.unparseable, "not a Digital Asset Links statement list (a JSON array)")
            return verdict
        }
        let errors = AssetLinksValidator.validate(bytes).filter { $0.severity == .error }
        if !errors.isEmpty {
            add(.lintErrors, "\(errors.count) error(s): " + errors.prefix(5).map { "\($0.code.rawValue) \($0.path): \($0.message)" }.joined(separator: "; "))
        }
        verdict.sha256 = Hex.sha256(bytes)
        return verdict
    }
}
