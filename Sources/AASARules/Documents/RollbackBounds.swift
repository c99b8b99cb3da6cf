import AASAKernel
import AASAModel
import AASAStore

/// What a rollback may bring back. An old revision was valid under the grants and apps of its day;
/// republishing its bytes must not reopen paths a team no longer holds, revive deleted apps, or
/// let one team rewrite another team's part of the file.
///
/// The rules (the README's "Rollback"):
/// - everyone, admins included: every app in the old file is registered today, its team holds a
///   grant on the domain today, every one of its rules lies inside that grant, and every service
///   list names only apps that have that service enabled today;
/// - a team token, additionally: every other team's part of the old file (its apps' entries,
///   rules and service memberships) equals that team's part of the current revision, so a team
///   rolls back only its own rules.
package enum RollbackBounds {
    package struct AppToday: Sendable {
        package var app: AppRecord
        /// The team's grant on the domain today, nil when it has none.
        package var grantPrefixes: [String]?
    }

    /// Every reason the old document may not be published today, each naming where it is.
    package static func violations(_ old: AASADocument, apps: [String: AppToday]) -> [FieldError] {
        var out: [FieldError] = []
        let applinks = old.applinks
        for (n, entry) in (applinks?.details ?? []).enumerated() {
            let at = "/applinks/details/\(n)"
            for appID in entry.effectiveAppIDs {
                guard let today = apps[appID] else {
                    out.append(FieldError(field: at, rule: "app-exists", message: "\(appID) is no longer registered"))
                    continue
                }
                guard let prefixes = today.grantPrefixes else {
                    out.append(
                        FieldError(
                            field: at, rule: "grant",
                            message: "team \(today.app.teamName) (app \(appID)) holds no grant on this domain today"))
                    continue
                }
                guard today.app.services.contains(.applinks) else {
                    out.append(
                        FieldError(
                            field: at, rule: "applinks-disabled",
                            message: "\(appID) no longer has the applinks service enabled"))
                    continue
                }
                for (m, rule) in (entry.components ?? []).enumerated() where rule.malformed == nil {
                    let caseSensitive =
                        rule.caseSensitive ?? entry.defaults?.caseSensitive ?? applinks?.defaults?.caseSensitive ?? true
                    if !PathGrant.covers(prefixes, pathPattern: rule.path, caseSensitive: caseSensitive) {
                        out.append(
                            FieldError(
                                field: "\(at)/components/\(m)", rule: "grant",
                                message:
                                    """
                                    \(rule.path.map { "`\($0)`" } ?? "a rule without `/` (every path)") of \
                                    \(appID) is outside team \(today.app.teamName)'s grant today \
                                    (\(prefixes.joined(separator: ", ")))
                                    """
                            ))
                    }
                }
                for (m, path) in (entry.paths ?? []).enumerated() {
                    let pattern = path.hasPrefix("NOT ") ? String(path.dropFirst(4)) : path
                    if !PathGrant.covers(prefixes, pathPattern: pattern) {
                        out.append(
                            FieldError(
                                field: "\(at)/paths/\(m)", rule: "grant",
                                message:
                                    """
                                    `\(path)` of \(appID) is outside team \(today.app.teamName)'s grant today \
                                    (\(prefixes.joined(separator: ", ")))
                                    """
                            ))
                    }
                }
            }
        }
        for (service, list) in serviceLists(old) {
            for (i, appID) in list.enumerated() {
                let at = "/\(service.rawValue)/apps/\(i)"
                guard let today = apps[appID] else {
                    out.append(FieldError(field: at, rule: "app-exists", message: "\(appID) is no longer registered"))
                    continue
                }
                if today.grantPrefixes == nil {
                    out.append(
                        FieldError(
                            field: at, rule: "grant",
                            message: "team \(today.app.teamName) (app \(appID)) holds no grant on this domain today"))
                } else if !today.app.services.contains(service) {
                    out.append(
                        FieldError(
                            field: at, rule: "service-disabled",
                            message: "\(appID) no longer has \(service.rawValue) enabled"))
                }
            }
        }
        return out
    }

    /// The teams, other than `team`, whose part differs between the old document and the current one.
    package static func otherTeamsChanged(
        old: AASADocument, current: AASADocument?, team: String, teamOf: [String: String]
    )
        -> [String]
    {
        struct Part: Equatable {
            var entries: [DetailsEntry] = []
            var services: [String] = []
        }
        func part(_ document: AASADocument?, of owner: String) -> Part {
            var out = Part()
            guard let document else { return out }
            out.entries = (document.applinks?.details ?? []).filter {
                $0.effectiveAppIDs.contains { teamOf[$0] == owner }
            }
            for (service, list) in serviceLists(document) {
                out.services += list.filter { teamOf[$0] == owner }.map { "\(service.rawValue):\($0)" }
            }
            return out
        }
        let owners = Set(teamOf.values).subtracting([team])
        return owners.filter { part(old, of: $0) != part(current, of: $0) }.sorted()
    }

    package static func appIDs(in document: AASADocument) -> Set<String> {
        var ids = Set((document.applinks?.details ?? []).flatMap(\.effectiveAppIDs))
        for (_, list) in serviceLists(document) { ids.formUnion(list) }
        return ids
    }

    private static func serviceLists(_ document: AASADocument) -> [(AppService, [String])] {
        [
            (.webcredentials, document.webcredentials?.apps), (.appclips, document.appclips?.apps),
            (.activitycontinuation, document.activitycontinuation?.apps),
        ].compactMap { service, apps in apps.map { (service, $0) } }
    }
}
