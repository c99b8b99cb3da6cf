import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Crypto
import Foundation

extension APIImplementation {
    func getDraftDocument(_ input: Operations.GetDraftDocument.Input) async throws -> Operations.GetDraftDocument.Output
    {
        let rendered = try await reads(try principal()).draft(input.path.host)
        let digest = Hex.sha256(rendered.bytes)
        let document = try Components.Schemas.AASADocument(
            from: JSONValueDecoder(value: try JSONParser.parse(rendered.bytes).value))
        return .ok(.init(headers: .init(eTag: "\"sha256-\(digest)\""), body: .json(document)))
    }

    func getReport(_ input: Operations.GetReport.Input) async throws -> Operations.GetReport.Output {
        let rendered = try await reads(try principal()).draft(input.path.host)
        let analysis = rendered.analysis ?? RuleAnalysis()
        func ref(_ location: RuleLocation) -> Components.Schemas.RuleRef {
            let r = rendered.ruleRef(location)
            return .init(team: r.team, appID: r.appID ?? "", ruleID: r.ruleID, path: r.path)
        }
        let report = Components.Schemas.Report(
            host: rendered.host, valid: rendered.errors.isEmpty, byteCount: rendered.bytes.count,
            errors: rendered.errors.map { .init(rendered.finding($0)) },
            warnings: rendered.warningFindings.map { .init($0) },
            shadowed: analysis.shadowed.map { .init(rule: ref($0.rule), shadowedBy: ref($0.shadowedBy)) },
            overlaps: analysis.overlaps.map { overlap in
                let first = ref(overlap.first)
                let second = ref(overlap.second)
                return .init(
                    first: first, second: second, exampleURL: overlap.exampleURL, opener: overlap.opener,
                    crossTeam: first.team != second.team)
            })
        return .ok(.init(body: .json(report)))
    }
}
