import AASAAPI
import AASAModel
import ArgumentParser

struct Audit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The audit trail, newest first (a team token sees its team's events).")
    @OptionGroup var remote: RemoteOptions
    @Option var team: String?
    @Option var domain: String?
    @Option var app: String?
    @Option(help: "A token ID.") var actor: String?
    @Option(help: "ISO 8601, inclusive.") var since: String?
    @Option(help: "ISO 8601, exclusive.") var until: String?
    @Option var limit: Int?
    @Option(help: "The previous page's nextCursor.") var cursor: String?
    func run() async throws {
        let response = try await remote.client.send(
            .get, "/v1/audit",
            query: [
                ("team", team), ("domain", domain), ("app", app), ("actor", actor), ("since", since), ("until", until),
                ("limit", limit.map(String.init)), ("cursor", cursor),
            ])
        try remote.show(response, as: Components.Schemas.AuditPage.self) { page in
            Table.rows(
                page.items,
                [
                    ("AT", { ContractAnswer.cell($0.at) }), ("ACTOR", { ContractAnswer.cell($0.actor.name) }),
                    ("ACTION", { ContractAnswer.cell($0.action) }),
                    ("ENTITY", { ContractAnswer.cell($0.entityID) }),
                    ("REQUEST", { ContractAnswer.cell($0.requestId) }),
                ])
                + (page.nextCursor.map { ["more: --cursor \(ContractAnswer.cell($0))"] } ?? [])
        }
    }
}
