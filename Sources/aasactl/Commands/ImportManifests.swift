import AASAModel
import Foundation

/// `aasactl import --write-manifests DIR`: one manifest per team from the import plans, ready to
/// commit to that team's repository. Each lists the team's apps (with their services) and its
/// rules on every domain imported in this run, so `aasactl plan -f DIR/TEAM.yaml` right after an
/// applied import reports no changes. A team's rules on domains not imported in this run are not
/// in it: add them before applying it (a manifest removes an app's rules where it lists none).
enum ImportManifests {
    /// Team → manifest text, from the plans (in the order the hosts were imported).
    static func manifests(from plans: [JSONValue]) -> [String: String] {
        var apps: [String: [(appID: String, services: [String], fingerprints: [JSONValue]?)]] = [:]
        var domains: [String: [(host: String, rules: [(appID: String, rules: [JSONValue], manifest: Bool)])]] = [:]
        for plan in plans {
            let host = plan.objectValue?["host"]?.stringValue ?? ""
            var perTeam: [String: [(appID: String, rules: [JSONValue], manifest: Bool)]] = [:]
            for app in plan.objectValue?["apps"]?.arrayValue ?? [] {
                let o = app.objectValue ?? [:]
                guard let appID = o["appID"]?.stringValue, let team = o["team"]?.stringValue else { continue }
                let services = (o["services"]?.arrayValue ?? []).compactMap(\.stringValue)
                if let i = apps[team]?.firstIndex(where: { $0.appID == appID }) {
                    apps[team]![i].services = AppService.allCases.map(\.rawValue).filter {
                        services.contains($0) || apps[team]![i].services.contains($0)
                    }
                } else {
                    apps[team, default: []].append((appID, services, o["fingerprints"]?.arrayValue))
                }
                let rules = o["rules"]?.arrayValue ?? []
                let manifest = o["manifestDecides"]?.boolValue == true
                if !rules.isEmpty || manifest { perTeam[team, default: []].append((appID, rules, manifest)) }
            }
            for (team, rules) in perTeam { domains[team, default: []].append((host, rules)) }
        }
        var out: [String: String] = [:]
        for (team, list) in apps {
            var lines = [
                "# Written by aasactl import: the rules as the domain served them.", "team: \(q(team))", "apps:",
            ]
            for app in list {
                lines.append("  \(q(app.appID)):\n    services: [\(app.services.joined(separator: ", "))]")
                if let fingerprints = app.fingerprints {
                    lines.append("    platform: android")
                    lines.append("    fingerprints: " + JSONWriter(style: .compact).string(.array(fingerprints)))
                }
            }
            lines.append("domains:" + ((domains[team] ?? []).isEmpty ? " {}" : ""))
            for domain in domains[team] ?? [] {
                lines.append("  \(q(domain.host)):")
                for app in domain.rules {
                    if app.manifest {
                        lines.append("    \(q(app.appID)): manifest")
                        continue
                    }
                    lines.append("    \(q(app.appID)):")
                    for rule in app.rules { lines.append("      - " + JSONWriter(style: .compact).string(rule)) }
                }
            }
            out[team] = lines.joined(separator: "\n") + "\n"
        }
        return out
    }

    /// A YAML scalar as a JSON string (YAML reads JSON's double-quoted strings alike).
    static func q(_ text: String) -> String { JSONWriter.quoted(text) }

    static func write(_ manifests: [String: String], to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (team, text) in manifests {
            let path = (directory as NSString).appendingPathComponent("\(team).yaml")
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            CLIOutput.error("wrote \(path)")
        }
    }
}
