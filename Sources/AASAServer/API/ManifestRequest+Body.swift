import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation

/// A manifest body as the contract gives it, checked for shape before any database work (app IDs,
/// services, hosts, rules as the rules endpoints read them, duplicates) and made the core's
/// `ManifestRequest`. Every problem is collected, so one answer names all of them with body
/// pointers (`/domains/0/apps/1/rules/2/~1`).
extension ManifestRequest {
    init(_ body: Components.Schemas.Manifest) throws {
        try BuildsInput.checkEnvironmentName(body.environment, field: "/environment")
        var errors: [FieldError] = []
        func fail(_ field: String, _ rule: String, _ message: String) {
            errors.append(FieldError(field: field, rule: rule, message: message))
        }

        // openapi.yaml's maxItems (the generated decoder checks none).
        if body.apps.count > 200 { fail("/apps", "maxItems", "a manifest lists at most 200 apps") }
        if body.domains.count > 500 { fail("/domains", "maxItems", "a manifest lists at most 500 domains") }
        for (i, domain) in body.domains.enumerated() where (domain.expect?.count ?? 0) > 1000 {
            fail("/domains/\(i)/expect", "maxItems", "a domain lists at most 1000 expectations")
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }

        var apps: [App] = []
        var seenApps = Set<String>()
        for (i, app) in body.apps.enumerated() {
            let pointer = "/apps/\(i)"
            guard seenApps.insert(app.appID).inserted else {
                fail("\(pointer)/appID", "unique", "\(app.appID) is listed twice")
                continue
            }
            do {
                let input = try AppInput.check(
                    appID: app.appID, platform: AppPlatform(rawValue: app.platform?.rawValue ?? "ios") ?? .ios,
                    services: app.services?.map(\.rawValue), fingerprints: app.fingerprints, rulesFrom: app.rulesFrom,
                    pointer: pointer)
                let builds = app.builds.map(APIImplementation.buildItems)
                if let builds { try BuildsInput.checkBounds(builds, pointer: pointer) }
                apps.append(
                    App(
                        appID: input.appID, services: input.services, pointer: pointer, platform: input.platform,
                        fingerprints: input.fingerprints ?? [], rulesFrom: input.rulesFrom,
                        builds: builds))
            } catch let problem as ServiceError { errors += problem.errors }
        }

        var domains: [Domain] = []
        var seenHosts = Set<String>()
        for (i, domain) in body.domains.enumerated() {
            let pointer = "/domains/\(i)"
            guard let host = try? HostName.normalized(domain.host) else {
                fail("\(pointer)/host", "host", "\(domain.host) is not a host name")
                continue
            }
            guard seenHosts.insert(host).inserted else {
                fail("\(pointer)/host", "unique", "\(host) is listed twice")
                continue
            }
            var entries: [Rules] = []
            var seenAppsHere = Set<String>()
            for (j, entry) in domain.apps.enumerated() {
                let entryPointer = "\(pointer)/apps/\(j)"
                guard seenApps.contains(entry.appID) else {
                    fail(
                        "\(entryPointer)/appID", "declared-app",
                        "\(entry.appID) is not among the manifest's apps; list it under apps")
                    continue
                }
                guard seenAppsHere.insert(entry.appID).inserted else {
                    fail("\(entryPointer)/appID", "unique", "\(entry.appID) is listed twice for \(host)")
                    continue
                }
                var rules: [ManifestRule] = []
                var seenIDs = Set<UUID>()
                for (k, rule) in entry.rules.enumerated() {
                    let rulePointer = "\(entryPointer)/rules/\(k)"
                    var id: UUID?
                    if let given = rule.id {
                        guard let parsed = UUIDText.parse(given) else {
                            fail("\(rulePointer)/id", "uuid", "a rule ID is a UUID")
                            continue
                        }
                        guard seenIDs.insert(parsed).inserted else {
                            fail("\(rulePointer)/id", "unique", "two rules have the ID \(given)")
                            continue
                        }
                        id = parsed
                    }
                    do {
                        rules.append(ManifestRule(id: id, component: try rule.component(field: rulePointer)))
                    } catch let problem as ServiceError { errors += problem.errors }
                }
                entries.append(
                    Rules(
                        appID: entry.appID, rules: rules, pointer: entryPointer,
                        manifestDecides: entry.manifestDecides ?? false))
            }
            var expect: [ExpectationInput]?
            if let listed = domain.expect {
                var seen: [ExpectationInput] = []
                for (k, item) in listed.enumerated() {
                    let input = APIImplementation.expectationInput(item)
                    let bounds = input.boundsProblems(pointer: "\(pointer)/expect/\(k)")
                    guard bounds.isEmpty else {
                        errors += bounds
                        continue
                    }
                    if seen.contains(where: { $0.url == input.url && $0.kind == input.kind && $0.appID == input.appID })
                    {
                        fail("\(pointer)/expect/\(k)", "unique", "\(input.url) is expected twice the same way")
                        continue
                    }
                    seen.append(input)
                }
                expect = seen
            }
            if (domain.relatedOrigins?.count ?? 0) > 50 {
                fail("\(pointer)/relatedOrigins", "maxItems", "a domain lists at most 50 related origins")
            }
            domains.append(
                Domain(
                    host: host, apps: entries, expect: expect, relatedOrigins: domain.relatedOrigins, pointer: pointer))
        }

        var publishReason: String?
        if body.publish == true {
            let reason = body.reason?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if reason.isEmpty { fail("/reason", "non-empty", "say why you publish") }
            publishReason = reason
        }
        if let reason = body.reason, reason.count > 1000 {
            fail("/reason", "maxLength", "a reason is at most 1000 characters")
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }
        self.init(apps: apps, domains: domains, publishReason: publishReason, environment: body.environment)
    }
}
