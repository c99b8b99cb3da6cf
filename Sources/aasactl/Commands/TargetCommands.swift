import AASAAPI
import AASAModel
import ArgumentParser
import Foundation

struct Targets: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Where a domain's files are published: web roots, S3-compatible buckets, CDN purges (set: admin).",
        subcommands: [Show.self, Set.self]
    )

    static func rows(_ targets: Components.Schemas.DomainTargets) -> [String] {
        Table.rows(
            targets.targets,
            [
                ("KIND", { $0.target.kind.rawValue }), ("NAME", { ContractAnswer.cell($0.target.name) }),
                ("OK", { ContractAnswer.cell($0.last?.ok) }),
                ("REVISION", { ContractAnswer.cell($0.last?.revision) }),
                ("ERROR", { ContractAnswer.cell($0.last?.error) }),
            ])
            + edgeLines(targets)
    }

    /// What the edge served after the last publish, one line per URL that does not serve it.
    static func edgeLines(_ targets: Components.Schemas.DomainTargets) -> [String] {
        targets.targets.flatMap { target in
            (target.last?.edge ?? []).filter { !$0.servesRevision }.map { edge in
                let codes = edge.findings.map(\.code).joined(separator: ", ")
                return "edge: \(edge.url) does not serve revision \(edge.expected) "
                    + "(serves revision \(ContractAnswer.cell(edge.revision)); \(codes))"
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Each target with its last outcome and what the edge served after it.")
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        func run() async throws {
            try remote.show(
                try await remote.client.send(.get, APIClient.path("v1", "domains", host, "targets")),
                as: Components.Schemas.DomainTargets.self, rows)
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace a domain's targets with those of a YAML or JSON file (a list, or {targets: [...]}).",
            discussion: """
                Each target: {kind: webRoot, path: /srv/www/example.com}; \
                {kind: s3, bucket: aasa-files, prefix: example.com/, region: eu-west-1, credentials: default, \
                publicURL: https://example.com}; {kind: purge, provider: cloudfront, distributionID: E2EXAMPLE, \
                credentials: default}; {kind: purge, provider: cloudflare, zoneID: <zone>, credentials: cloudflare}; \
                {kind: purge, provider: http, url: https://cache.internal, method: PURGE}. Credentials name a set \
                of the server's configuration; no secret goes in this file.
                """)
        @OptionGroup var remote: RemoteOptions
        @Argument var host: String
        @Option(name: .customLong("file"), help: "The targets, as YAML or JSON.") var file: String
        @Option(help: "The ETag (version) the change is based on.") var ifMatch: String?
        func run() async throws {
            guard let data = FileManager.default.contents(atPath: file) else { throw CLIFailure("cannot read \(file)") }
            let value = try YAMLJSON.parse(String(decoding: data, as: UTF8.self), file: file)
            let targets = value.arrayValue ?? value.objectValue?["targets"]?.arrayValue
            guard let targets else { throw CLIFailure("\(file): a list of targets, or {targets: [...]}") }
            let response = try await remote.client.send(
                .put, APIClient.path("v1", "domains", host, "targets"),
                body: .object(["targets": .array(targets)]), headers: ifMatchHeader(ifMatch))
            try remote.show(response, as: Components.Schemas.DomainTargets.self, rows)
        }
    }
}
