import AASAAPI
import AASAModel
import ArgumentParser

typealias PublishResult = Components.Schemas.PublishResult
typealias AssetLinksPublish = Components.Schemas.AssetLinksPublish

/// The lines of a publish or rollback answer.
func publishLines(_ result: PublishResult) -> [String] {
    let revision = result.revision
    var lines = [
        result.created
            ? """
            Published \(revision.host) revision \(revision.number) (\(revision.byteCount) bytes, sha256 \
            \(revision.sha256.prefix(12))).
            """
            : """
            No change: \(revision.host) revision \(revision.number) has these bytes already; web roots written \
            again.
            """
    ]
    lines += targetLines(result.targets)
    if let android = result.assetLinks {
        lines.append(
            android.created
                ? """
                Published assetlinks.json revision \(android.revision.number) \
                (\(android.revision.byteCount) bytes).
                """
                : "assetlinks.json unchanged at revision \(android.revision.number).")
        for target in android.targets where !target.ok {
            lines.append("  FAILED \(target.webRoot): \(target.error ?? "-")")
        }
    }
    if let cdn = result.cdn { lines.append(cdn) }
    return lines + Table.findings(result.warnings, heading: "Warnings:")
}

/// Each web root's outcome, one line each.
func targetLines(_ targets: [Components.Schemas.TargetOutcome]) -> [String] {
    targets.map { target in
        "  \(target.ok ? "ok    " : "FAILED") \(target.webRoot)\(target.ok ? "" : ": " + (target.error ?? "-"))"
    }
}

/// The lines of an assetlinks.json rollback answer.
func assetLinksLines(_ result: AssetLinksPublish) -> [String] {
    [
        result.created
            ? """
            Published assetlinks.json of \(result.revision.host) as revision \(result.revision.number).
            """
            : "No change: assetlinks.json revision \(result.revision.number) has these bytes already."
    ] + targetLines(result.targets)
}

/// Exit 1 when any web root failed: the revision stands, but a pipeline should notice.
func failIfTargetFailed(_ targets: [Components.Schemas.TargetOutcome]) throws {
    if targets.contains(where: { !$0.ok }) { throw ExitCode(1) }
}

func failIfTargetFailed(_ result: PublishResult) throws {
    try failIfTargetFailed(result.targets + (result.assetLinks?.targets ?? []))
}

struct Publish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Publish a domain's draft as a new revision and write it to its web roots.",
        discussion:
            """
            Exit status 1 when a web root could not be written (the revision is still current; reconciliation \
            retries).
            """
    )
    @OptionGroup var remote: RemoteOptions
    @Argument var host: String
    @Option(help: "Why; kept with the revision and in the audit trail.") var reason: String
    func run() async throws {
        let response = try await remote.client.send(
            .post, APIClient.path("v1", "domains", host, "publish"), body: .object(["reason": .string(reason)]))
        let result = try response.decode(PublishResult.self)
        try remote.show(response, result, publishLines)
        try failIfTargetFailed(result)
    }
}

struct Rollback: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Publish an earlier revision's bytes as a new revision.")
    @OptionGroup var remote: RemoteOptions
    @Argument var host: String
    @Argument var revision: Int
    @Option var reason: String
    @Flag(
        help: "Roll back assetlinks.json (its own revision stream) instead of the AASA; a team only its own statements."
    ) var android = false
    func run() async throws {
        if android {
            let response = try await remote.client.send(
                .post, APIClient.path("v1", "domains", host, "assetlinks", "revisions", String(revision), "rollback"),
                body: .object(["reason": .string(reason)]))
            let result = try response.decode(AssetLinksPublish.self)
            try remote.show(response, result, assetLinksLines)
            try failIfTargetFailed(result.targets)
            return
        }
        let response = try await remote.client.send(
            .post, APIClient.path("v1", "domains", host, "revisions", String(revision), "rollback"),
            body: .object(["reason": .string(reason)]))
        let result = try response.decode(PublishResult.self)
        try remote.show(response, result, publishLines)
        try failIfTargetFailed(result)
    }
}

struct Revisions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A domain's published revisions.",
        subcommands: [List.self, Show.self, File.self]
    )

    struct List: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        @Option var limit: Int?
        @Option(help: "The previous page's nextCursor.") var cursor: String?
        @Option(help: .hidden) var before: Int?
        @Flag(help: "assetlinks.json's revisions instead of the AASA's.") var android = false
        func run() async throws {
            let path =
                android
                ? APIClient.path("v1", "domains", host, "assetlinks", "revisions")
                : APIClient.path("v1", "domains", host, "revisions")
            let response = try await remote.client.send(
                .get, path,
                query: [("limit", limit.map(String.init)), ("cursor", cursor), ("before", before.map(String.init))])
            try remote.show(response, as: Components.Schemas.RevisionPage.self) { page in
                Table.rows(
                    page.items,
                    [
                        ("#", { ContractAnswer.cell($0.number) }), ("CREATED", { ContractAnswer.cell($0.createdAt) }),
                        ("BY", { ContractAnswer.cell($0.actor.name) }),
                        ("BYTES", { ContractAnswer.cell($0.byteCount) }),
                        ("ROLLBACK OF", { ContractAnswer.cell($0.rollbackOf) }),
                        ("REASON", { ContractAnswer.cell($0.reason) }),
                    ])
                    + (page.nextCursor.map { ["more: --cursor \(ContractAnswer.cell($0))"] } ?? [])
            }
        }
    }

    struct Show: AsyncParsableCommand {
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        @Argument var number: Int
        func run() async throws {
            let response = try await remote.client.send(
                .get, APIClient.path("v1", "domains", host, "revisions", String(number)))
            try remote.show(response, as: Components.Schemas.Revision.self) { revision in
                // The diff is AASAModel's `DocumentDiff`, free-form in the contract: read as its JSON.
                let diff: JSONValue = revision.diff.flatMap { ContractAnswer.json($0) } ?? .null
                let fields: [(label: String, cell: (Components.Schemas.Revision) -> String)] = [
                    ("Host", { ContractAnswer.cell($0.host) }), ("Revision", { ContractAnswer.cell($0.number) }),
                    ("Created", { ContractAnswer.cell($0.createdAt) }),
                    ("By", { ContractAnswer.cell($0.actor.name) }), ("Reason", { ContractAnswer.cell($0.reason) }),
                    ("Bytes", { ContractAnswer.cell($0.byteCount) }),
                    ("SHA-256", { ContractAnswer.cell($0.sha256) }),
                    ("Rollback of", { ContractAnswer.cell($0.rollbackOf) }),
                ]
                return Table.fields(revision, fields) + ["Changes:"]
                    + DocumentDiff.textLines(json: diff).map { "  " + $0 }
            }
        }
    }

    struct File: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The exact bytes of a revision, to standard output.")
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        @Argument var number: Int
        func run() async throws {
            let response = try await remote.client.send(
                .get, APIClient.path("v1", "domains", host, "revisions", String(number), "file"))
            CLIOutput.write(response.body)
        }
    }
}
