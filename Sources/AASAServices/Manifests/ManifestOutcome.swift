import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore

/// What a manifest apply (or its plan) did, in the core's words; the edge writes each as the
/// contract's `Manifest…` schema of the same name and shape.
package struct ManifestAppChange: Sendable, Equatable {
    package enum Action: String, Sendable { case create, update, unchanged }
    package var appID: String
    package var action: Action
    package var services: [AppService]
    package var previousServices: [AppService]?

    package init(appID: String, action: Action, services: [AppService], previousServices: [AppService]? = nil) {
        self.appID = appID
        self.action = action
        self.services = services
        self.previousServices = previousServices
    }
}

package struct ManifestRuleChange: Sendable, Equatable {
    package enum Action: String, Sendable { case replace, clear, unchanged }
    package var appID: String
    package var action: Action
    package var rulesBefore: Int
    package var rulesAfter: Int
    package var version: Int64

    package init(appID: String, action: Action, rulesBefore: Int, rulesAfter: Int, version: Int64) {
        self.appID = appID
        self.action = action
        self.rulesBefore = rulesBefore
        self.rulesAfter = rulesAfter
        self.version = version
    }
}

package struct ManifestExpectationChange: Sendable, Equatable {
    package enum Action: String, Sendable { case create, update, delete, unchanged }
    package var url: String
    /// `opens`, `opensNone` or `notApp`.
    package var kind: String
    package var appID: String?
    package var action: Action

    package init(url: String, kind: String, appID: String?, action: Action) {
        self.url = url
        self.kind = kind
        self.appID = appID
        self.action = action
    }
}

package struct ManifestDomainResult: Sendable {
    package var host: String
    package var environment: String?
    package var changed: Bool
    package var rules: [ManifestRuleChange]
    package var expectations: [ManifestExpectationChange]?
    /// The team's related origins added and removed (a manifest that lists them).
    package var relatedOrigins: (added: [String], removed: [String])?
    /// AASAModel's diff of the domain's document before and after.
    package var diff: JSONValue
    /// The URLs whose outcome on Android changes (`AndroidDecisionChanges`), nil without Android.
    package var androidChanges: JSONValue?
    package var warnings: [Finding]

    package init(
        host: String, environment: String?, changed: Bool, rules: [ManifestRuleChange],
        expectations: [ManifestExpectationChange]?, diff: JSONValue, warnings: [Finding]
    ) {
        self.host = host
        self.environment = environment
        self.changed = changed
        self.rules = rules
        self.expectations = expectations
        self.diff = diff
        self.warnings = warnings
    }
}
