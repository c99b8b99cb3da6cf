import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// A manifest body checked for shape before any database work: app IDs, services, hosts, rules
/// (as the rules endpoints read them), duplicates. Every problem is collected, so one answer
/// names all of them with body pointers (`/domains/0/apps/1/rules/2/~1`).
package struct ManifestRequest: Sendable {
    package struct App: Sendable {
        package var appID: String
        package var services: [AppService]
        package var pointer: String
        package var platform: AppPlatform = .ios
        /// An Android app's signing fingerprints (empty for iOS).
        package var fingerprints: [String] = []
        /// The iOS app whose rules an Android app follows (nil: its own).
        package var rulesFrom: String?
        /// The app's builds per environment (nil: left as they are).
        package var builds: [BuildsInput.Item]?

        package init(
            appID: String, services: [AppService], pointer: String, platform: AppPlatform = .ios,
            fingerprints: [String] = [], rulesFrom: String? = nil, builds: [BuildsInput.Item]? = nil
        ) {
            self.appID = appID
            self.services = services
            self.pointer = pointer
            self.platform = platform
            self.fingerprints = fingerprints
            self.rulesFrom = rulesFrom
            self.builds = builds
        }
    }

    /// One app's rules on one domain, as the manifest lists them.
    package struct Rules: Sendable {
        package var appID: String
        package var rules: [ManifestRule]
        package var pointer: String
        /// An Android app's statement without rules, its manifest deciding.
        package var manifestDecides = false

        package init(appID: String, rules: [ManifestRule], pointer: String, manifestDecides: Bool = false) {
            self.appID = appID
            self.rules = rules
            self.pointer = pointer
            self.manifestDecides = manifestDecides
        }
    }

    package struct ManifestRule: Sendable {
        package var id: UUID?
        package var component: JSONValue

        package init(id: UUID? = nil, component: JSONValue) {
            self.id = id
            self.component = component
        }
    }

    package struct Domain: Sendable {
        package var host: String
        package var apps: [Rules]
        /// The team's golden URLs on the domain, replacing its current ones; nil leaves them alone.
        package var expect: [ExpectationInput]?
        /// The team's related origins on the domain, replacing its current ones; nil leaves them alone.
        package var relatedOrigins: [String]?
        package var pointer: String

        package init(
            host: String, apps: [Rules], expect: [ExpectationInput]? = nil, relatedOrigins: [String]? = nil,
            pointer: String
        ) {
            self.host = host
            self.apps = apps
            self.expect = expect
            self.relatedOrigins = relatedOrigins
            self.pointer = pointer
        }
    }

    package var apps: [App]
    package var domains: [Domain]
    package var publishReason: String?
    /// Only this environment's domains and builds (nil: all of the manifest).
    package var environment: String?

    package init(apps: [App], domains: [Domain], publishReason: String?, environment: String?) {
        self.apps = apps
        self.domains = domains
        self.publishReason = publishReason
        self.environment = environment
    }

    /// The stored rules a manifest entry becomes: a rule keeps the ID it is given, or else the ID of
    /// an identical current rule (first unused one), so re-applying a manifest changes nothing.
    package static func resolve(_ wanted: [ManifestRule], current: [StoredRule]) -> [StoredRule] {
        let explicit = Set(wanted.compactMap(\.id))
        var unused = current.filter { !explicit.contains($0.id) }
        return wanted.map { rule in
            if let id = rule.id { return StoredRule(id: id, component: rule.component) }
            // Stored components come back from jsonb with their keys reordered: the same rule is the
            // same whatever the order of its keys, and keeps its stored form.
            let wanted = rule.component.keyOrdered
            if let i = unused.firstIndex(where: { $0.component.keyOrdered == wanted }) { return unused.remove(at: i) }
            return StoredRule(id: UUID(), component: rule.component)
        }
    }
}
