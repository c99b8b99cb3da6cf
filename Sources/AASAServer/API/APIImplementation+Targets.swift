import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation

extension APIImplementation {
    func getTargets(_ input: Operations.GetTargets.Input) async throws -> Operations.GetTargets.Output {
        let targets = try await DomainTargets.read(input.path.host, principal: try principal(), work: work)
        return .ok(
            .init(headers: .init(eTag: ETag.of(targets.domain.version)), body: .json(try .init(targets))))
    }

    func putTargets(_ input: Operations.PutTargets.Input) async throws -> Operations.PutTargets.Output {
        let body =
            switch input.body {
            case .json(let body): body
            }
        let specs = try body.targets.map { try SameJSON.convert($0, to: TargetSpec.self) }
        try TargetSpecCheck.checkLimits(specs)
        _ = try await change(
            TargetsChange(
                host: input.path.host, specs: specs, credentialSets: credentialSets, webRootBases: webRootBases,
                ifMatch: input.headers.ifMatch))
        let targets = try await DomainTargets.read(input.path.host, work: work)
        return .ok(
            .init(headers: .init(eTag: ETag.of(targets.domain.version)), body: .json(try .init(targets))))
    }
}

extension Components.Schemas.DomainTargets {
    init(_ targets: DomainTargets) throws {
        self.init(
            host: targets.domain.host,
            targets: try targets.entries.map {
                .init(
                    target: try SameJSON.convert($0.spec, to: Components.Schemas.Target.self),
                    last: try $0.last.map { try SameJSON.convert($0, to: Components.Schemas.ObjectTargetOutcome.self) })
            })
    }
}

/// A core type and its generated contract twin have the same JSON shape (targets and their
/// outcomes are stored as that JSON): one is read as the other through it, so no field is mapped
/// by hand and none can be forgotten.
enum SameJSON {
    static func convert<From: Encodable, To: Decodable>(_ value: From, to: To.Type) throws -> To {
        try JSONDecoder().decode(To.self, from: try JSONEncoder().encode(value))
    }
}
