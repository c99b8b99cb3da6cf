import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import OpenAPIRuntime

/// The core's manifest outcome written as the contract's schemas of the same names.
extension Components.Schemas.ManifestAppChange {
    init(_ change: ManifestAppChange) {
        self.init(
            appID: change.appID, action: .init(rawValue: change.action.rawValue) ?? .unchanged,
            services: change.services.compactMap { Components.Schemas.Service(rawValue: $0.rawValue) },
            previousServices: change.previousServices?.compactMap { Components.Schemas.Service(rawValue: $0.rawValue) })
    }
}

extension Components.Schemas.ManifestRuleChange {
    init(_ change: ManifestRuleChange) {
        self.init(
            appID: change.appID, action: .init(rawValue: change.action.rawValue) ?? .unchanged,
            rulesBefore: change.rulesBefore, rulesAfter: change.rulesAfter, version: change.version)
    }
}

extension Components.Schemas.ManifestExpectationChange {
    init(_ change: ManifestExpectationChange) {
        self.init(
            url: change.url, kind: .init(rawValue: change.kind) ?? .opens, appID: change.appID,
            action: .init(rawValue: change.action.rawValue) ?? .unchanged)
    }
}

extension Components.Schemas.ManifestDomainResult {
    init(_ result: ManifestDomainResult) throws {
        self.init(
            host: result.host, environment: result.environment, changed: result.changed,
            rules: result.rules.map(Components.Schemas.ManifestRuleChange.init),
            expectations: result.expectations?.map(Components.Schemas.ManifestExpectationChange.init),
            relatedOrigins: result.relatedOrigins.map { .init(added: $0.added, removed: $0.removed) },
            diff: try OpenAPIValueContainer(json: result.diff),
            androidChanges: try result.androidChanges.map { try OpenAPIValueContainer(json: $0) },
            warnings: result.warnings.map(Components.Schemas.Finding.init))
    }
}
