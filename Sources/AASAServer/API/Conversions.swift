import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import OpenAPIRuntime

// Store records to the API's generated types, and each record as the JSON the audit trail keeps.
// Generated types never reach AASAStore; AASAStore's records never leave AASAServer.

extension Components.Schemas.Team {
    init(_ r: TeamRecord) {
        self.init(
            name: r.name, displayName: r.displayName, appleTeamIDs: r.appleTeamIDs, createdAt: r.createdAt,
            updatedAt: r.updatedAt, version: r.version)
    }
}

extension Components.Schemas.Token {
    init(_ r: TokenRecord) {
        self.init(
            id: r.id.uuidString.lowercased(), team: r.teamName, name: r.name,
            scopes: r.scopes.sorted().compactMap { Components.Schemas.Scope(rawValue: $0.rawValue) },
            createdAt: r.createdAt, expiresAt: r.expiresAt, revokedAt: r.revokedAt, lastUsedAt: r.lastUsedAt)
    }
}

extension Components.Schemas.App {
    /// With `warnings` (an app's own answers: G001 where a grant lacks a service it asks for);
    /// lists leave them out.
    init(_ r: AppRecord, warnings: [Finding]? = nil) {
        self.init(
            appID: r.appID, team: r.teamName, platform: .init(rawValue: r.platform.rawValue) ?? .ios,
            services: r.services.compactMap { Components.Schemas.Service(rawValue: $0.rawValue) },
            fingerprints: r.platform == .android ? r.fingerprints : nil, rulesFrom: r.rulesFrom,
            keyLabels: r.keyLabels.isEmpty ? nil : .init(additionalProperties: r.keyLabels), createdAt: r.createdAt,
            updatedAt: r.updatedAt, version: r.version,
            warnings: warnings?.map(Components.Schemas.Finding.init))
    }
}

extension Components.Schemas.Domain {
    init(_ r: DomainRecord, warnings: [Finding]? = nil) {
        self.init(
            host: r.host, environment: r.environment, unicodeHost: HostName.unicode(r.host), aliases: r.aliases,
            substitutionVariables: .init(
                additionalProperties: Dictionary(
                    r.substitutionVariables.map { ($0.name, $0.values) }, uniquingKeysWith: { _, last in last })),
            defaults: .init(caseSensitive: r.defaults.caseSensitive, percentEncoded: r.defaults.percentEncoded),
            webRoots: r.webRoots, autoPublish: r.autoPublish, legacyRootPath: r.legacyRootPath,
            currentRevision: r.currentRevision, createdAt: r.createdAt, updatedAt: r.updatedAt, version: r.version,
            warnings: warnings?.map(Components.Schemas.Finding.init))
    }
}

extension Components.Schemas.Grant {
    init(_ r: GrantRecord) {
        self.init(
            host: r.host, team: r.teamName, pathPrefixes: r.pathPrefixes,
            services: r.services.compactMap { Components.Schemas.DomainService(rawValue: $0.rawValue) },
            createdAt: r.createdAt, updatedAt: r.updatedAt, version: r.version)
    }
}

extension Components.Schemas.Finding {
    init(_ f: Finding) {
        self.init(code: f.code, path: f.path, message: f.message, team: f.team, appID: f.appID, ruleID: f.ruleID)
    }
}

extension Components.Schemas.Rule {
    /// A stored rule as the API shows it: its component's keys plus its ID.
    init(_ rule: StoredRule) {
        let c = rule.component.objectValue ?? [:]
        var query: Components.Schemas.QueryPattern?
        switch c["?"] {
        case .string(let s)?: query = .case1(s)
        case .object(let items)?:
            query = .case2(
                .init(
                    additionalProperties: Dictionary(
                        items.map { ($0.key, $0.value.stringValue ?? "") }, uniquingKeysWith: { _, last in last })))
        default: query = nil
        }
        self.init(
            id: rule.id.uuidString.lowercased(), _sol_: c["/"]?.stringValue, _quest_: query,
            _num_: c["#"]?.stringValue, exclude: c["exclude"]?.boolValue,
            caseSensitive: c["caseSensitive"]?.boolValue, percentEncoded: c["percentEncoded"]?.boolValue,
            comment: c["comment"]?.stringValue)
    }

    /// The `components` entry this rule stands for, in canonical key order; unknown keys are refused
    /// (a typo such as `excluded` would otherwise be silently ignored by Apple).
    func component(field: String) throws -> JSONValue {
        if let unknown = additionalProperties.value.keys.sorted().first {
            throw ServiceError.invalid(
                field: "\(field)/\(unknown)", rule: "unknown-key",
                """
                `\(unknown)` is not a component key; the keys are /, ?, #, exclude, caseSensitive, \
                percentEncoded, comment
                """
            )
        }
        var object = JSONObject()
        if let p = _sol_ { object.append("/", .string(p)) }
        switch _quest_ {
        case .case1(let s)?: object.append("?", .string(s))
        case .case2(let items)?:
            object.append(
                "?",
                .object(
                    JSONObject(
                        items.additionalProperties.sorted { $0.key < $1.key }.map {
                            JSONMember($0.key, .string($0.value))
                        })))
        case nil: break
        }
        if let f = _num_ { object.append("#", .string(f)) }
        if let e = exclude { object.append("exclude", .bool(e)) }
        if let c = caseSensitive { object.append("caseSensitive", .bool(c)) }
        if let p = percentEncoded { object.append("percentEncoded", .bool(p)) }
        if let c = comment { object.append("comment", .string(c)) }
        return .object(object)
    }
}

extension OpenAPIObjectContainer {
    /// A JSON object as the runtime's free-form object (rule references, overrides).
    init(json: JSONValue) throws {
        guard case .object(let object) = json else {
            // As the decoder this replaces would have refused it.
            throw DecodingError.typeMismatch(
                JSONObject.self, .init(codingPath: [], debugDescription: "\(json.typeName), not an object"))
        }
        self = try OpenAPIObjectContainer(from: JSONValueDecoder(value: .object(object)))
    }
}

extension OpenAPIValueContainer {
    /// Our lossless JSON as the runtime's free-form container (for audit payloads and documents).
    package init(json: JSONValue) throws {
        self = try OpenAPIValueContainer(from: JSONValueDecoder(value: json))
    }
}

extension DomainDefaults {
    init(_ defaults: Components.Schemas.Defaults) {
        self.init(caseSensitive: defaults.caseSensitive, percentEncoded: defaults.percentEncoded)
    }
}
