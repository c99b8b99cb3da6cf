import AASAModel
import ArgumentParser

/// The lines of a publish or rollback answer.
func publishLines(_ json: JSONValue) -> [String] {
    let created = json.objectValue?["created"]?.boolValue == true
    var lines = [
        created
            ? """
            Published \(Table.value(json, "revision.host")) revision \(Table.value(json, "revision.number")) \
            (\(Table.value(json, "revision.byteCount")) bytes, sha256 \
            \(Table.value(json, "revision.sha256").prefix(12))).
            """
            : """
            No change: \(Table.value(json, "revision.host")) revision \(Table.value(json, "revision.number")) has \
            these bytes already; web roots written again.
            """
    ]
    for target in json.objectValue?["targets"]?.arrayValue ?? [] {
        let ok = target.objectValue?["ok"]?.boolValue == true
        lines.append(
            """
              \(ok ? "ok    " : "FAILED") \
            \(Table.value(target, "webRoot"))\(ok ? "" : ": " + Table.value(target, "error"))
            """
        )
    }
    if let android = json.objectValue?["assetLinks"] {
        let created = android.objectValue?["created"]?.boolValue == true
        lines.append(
            created
                ? """
                Published assetlinks.json revision \(Table.value(android, "revision.number")) \
                (\(Table.value(android, "revision.byteCount")) bytes).
                """
                : "assetlinks.json unchanged at revision \(Table.value(android, "revision.number")).")
        for target in android.objectValue?["targets"]?.arrayValue ?? []
        where target.objectValue?["ok"]?.boolValue == false {
            lines.append("  FAILED \(Table.value(target, "webRoot")): \(Table.value(target, "error"))")
        }
    }
    if let cdn = json.objectValue?["cdn"]?.stringValue { lines.append(cdn) }
    return lines + Table.findings(json.objectValue?["warnings"], heading: "Warnings:")
}

/// The lines of an assetlinks.json rollback answer.
func assetLinksLines(_ json: JSONValue) -> [String] {
    let created = json.objectValue?["created"]?.boolValue == true
    var lines = [
        created
            ? """
            Published assetlinks.json of \(Table.value(json, "revision.host")) as revision \
            \(Table.value(json, "revision.number")).
            """
            : "No change: assetlinks.json revision \(Table.value(json, "revision.number")) has these bytes already."
    ]
    for target in json.objectValue?["targets"]?.arrayValue ?? [] {
        let ok = target.objectValue?["ok"]?.boolValue == true
        lines.append(
            """
              \(ok ? "ok    " : "FAILED") \
            \(Table.value(target, "webRoot"))\(ok ? "" : ": " + Table.value(target, "error"))
            """
        )
    }
    return lines
}

/// Exit 1 when any web root failed: the revision stands, but a pipeline should notice.
func failIfTargetFailed(_ json: JSONValue) throws {
    let targets =
        (json.objectValue?["targets"]?.arrayValue ?? [])
        + (json.objectValue?["assetLinks"]?.objectValue?["targets"]?.arrayValue ?? [])
    if targets.contains(where: { $0.objectValue?["ok"]?.boolValue == false }) { throw ExitCode(1) }
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
        try remote.show(response, publishLines)
        try failIfTargetFailed(try response.json())
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
            try remote.show(response, assetLinksLines)
            try failIfTargetFailed(try response.json())
            return
        }
        let response = try await remote.client.send(
            .post, APIClient.path("v1", "domains", host, "revisions", String(revision), "rollback"),
            body: .object(["reason": .string(reason)]))
        try remote.show(response, publishLines)
        try failIfTargetFailed(try response.json())
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
            try remote.show(response) { json in
                Table.rows(
                    json,
                    [
                        ("#", "number"), ("CREATED", "createdAt"), ("BY", "actor.name"), ("BYTES", "byteCount"),
                        ("ROLLBACK OF", "rollbackOf"), ("REASON", "reason"),
                    ])
                    + (json.objectValue?["nextCursor"].map { ["more: --cursor \(Table.text($0))"] } ?? [])
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
            try remote.show(response) { json in
                Table.fields(
                    json,
                    [
                        ("Host", "host"), ("Revision", "number"), ("Created", "createdAt"), ("By", "actor.name"),
                        ("Reason", "reason"), ("Bytes", "byteCount"), ("SHA-256", "sha256"),
                        ("Rollback of", "rollbackOf"),
                    ])
                    + ["Changes:"] + DocumentDiff.textLines(json: json.objectValue?["diff"] ?? .null).map { "  " + $0 }
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
