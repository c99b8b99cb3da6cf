import AASAModel
import AASAStore
import Foundation

/// Records as the audit trail's before/after JSON.
package enum AuditJSON {
    package static func team(_ r: TeamRecord) -> JSONValue {
        .object(["name": .string(r.name), "displayName": .string(r.displayName), "version": .number(String(r.version))])
    }

    package static func token(_ r: TokenRecord) -> JSONValue {
        var o: JSONObject = [
            "id": .string(r.id.uuidString.lowercased()), "name": .string(r.name),
            "scopes": .array(r.scopes.sorted().map { .string($0.rawValue) }),
        ]
        if let team = r.teamName { o.append("team", .string(team)) }
        if let e = r.expiresAt { o.append("expiresAt", .string(ISO8601DateFormatter().string(from: e))) }
        return .object(o)
    }

    /// An app's builds, as its audit events and the builds API show them.
    package static func builds(_ builds: [BuildRecord]) -> JSONValue {
        .array(builds.map(build))
    }

    package static func build(_ b: BuildRecord) -> JSONValue {
        var o: JSONObject = ["environment": .string(b.environment), "appID": .string(b.identity)]
        if !b.fingerprints.isEmpty {
            o.append(
                "fingerprints",
                .array(b.fingerprints.map { .object(["sha256": .string($0.sha256), "label": .string($0.label)]) }))
        }
        if b.playSigningAbsent { o.append("playSigningAbsent", .bool(true)) }
        return .object(o)
    }

    package static func app(_ r: AppRecord) -> JSONValue {
        var o: JSONObject = [
            "appID": .string(r.appID), "team": .string(r.teamName), "platform": .string(r.platform.rawValue),
            "services": .array(r.services.map { .string($0.rawValue) }), "version": .number(String(r.version)),
        ]
        if r.platform == .android { o.append("fingerprints", .array(r.fingerprints.map(JSONValue.string))) }
        if !r.keyLabels.isEmpty {
            let labels = r.keyLabels.sorted { $0.key < $1.key }.map { JSONMember($0.key, .string($0.value)) }
            o.append("keyLabels", .object(JSONObject(labels)))
        }
        if let source = r.rulesFrom { o.append("rulesFrom", .string(source)) }
        return .object(o)
    }

    package static func domain(_ r: DomainRecord) -> JSONValue {
        var variables = JSONObject()
        for v in r.substitutionVariables { variables.append(v.name, .array(v.values.map(JSONValue.string))) }
        var defaults = JSONObject()
        if let c = r.defaults.caseSensitive { defaults.append("caseSensitive", .bool(c)) }
        if let p = r.defaults.percentEncoded { defaults.append("percentEncoded", .bool(p)) }
        return .object([
            "host": .string(r.host), "aliases": .array(r.aliases.map(JSONValue.string)),
            "substitutionVariables": .object(variables), "defaults": .object(defaults),
            "webRoots": .array(r.webRoots.map(JSONValue.string)), "autoPublish": .bool(r.autoPublish),
            "legacyRootPath": .bool(r.legacyRootPath), "environment": .string(r.environment),
            "version": .number(String(r.version)),
        ])
    }

    package static func grant(_ r: GrantRecord) -> JSONValue {
        .object([
            "host": .string(r.host), "team": .string(r.teamName),
            "pathPrefixes": .array(r.pathPrefixes.map(JSONValue.string)),
            "services": .array(r.services.map { .string($0.rawValue) }), "version": .number(String(r.version)),
        ])
    }

    /// `manifestDecides` is written only when set, so older events and newer ones read alike.
    package static func rules(_ rules: [StoredRule], version: Int64, manifest: Bool = false) -> JSONValue {
        var o: JSONObject = [
            "rules": .array(
                rules.map { .object(["id": .string($0.id.uuidString.lowercased()), "component": $0.component]) }),
            "version": .number(String(version)),
        ]
        if manifest { o.append("manifestDecides", .bool(true)) }
        return .object(o)
    }

    package static func order(_ apps: [String], version: Int64) -> JSONValue {
        .object(["apps": .array(apps.map(JSONValue.string)), "version": .number(String(version))])
    }
}
