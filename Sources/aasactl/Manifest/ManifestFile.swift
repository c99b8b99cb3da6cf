import AASAModel
import Foundation

/// A team's manifest file (YAML or JSON), as kept in an app repository:
///
///     team: shop                      # optional: else --team, else the logged-in token's team
///     apps:
///       ABCDE12345.com.example.shop:
///         services: [applinks, webcredentials]
///       com.example.shop:             # an Android app: its package name and signing keys
///         platform: android
///         fingerprints: ["14:6D:E9:…"]
///     domains:
///       example.com:
///         ABCDE12345.com.example.shop:
///           - "/": "/shop/*"
///           - { "/": "/shop/admin/*", exclude: true }
///         com.example.shop: manifest  # an Android statement without dynamic rules: its manifest decides
///         expect:                     # optional: the team's golden URLs here, replaced as a whole
///           - { url: "https://example.com/shop/1", kind: opens, appID: ABCDE12345.com.example.shop }
///         relatedOrigins:             # optional: the team's passkey related origins here, replaced as a whole
///           - https://shop.example.de
///
/// With environments, an app names its build in each, and its rules are written once for every
/// domain of the environments listed (`plan`/`apply --env staging` send only staging's):
///
///     apps:
///       ABCDE12345.com.example.shop:
///         builds:                     # replaced as a whole; absent: left as they are
///           staging: ABCDE12345.com.example.shop.beta
///           prod: ABCDE12345.com.example.shop
///       com.example.shop:
///         platform: android
///         fingerprints: ["14:6D:E9:…"]
///         builds:
///           prod: { appID: com.example.shop, keys: ["14:6D:E9:…@upload", "AB:CD:…@play-signing"] }
///     rules:                          # once, for every domain below
///       ABCDE12345.com.example.shop: [{ "/": "/shop/*" }]
///     environments:
///       staging: [staging.example.com]
///       prod: [example.com]
///
/// It becomes the API's manifest body (arrays, so errors carry pointers); `describe` turns such a
/// pointer back into the file's own terms.
struct ManifestFile: Sendable {
    var path: String
    var team: String?
    /// Each app with its settings as written (services, platform, fingerprints).
    var apps: [(appID: String, settings: JSONObject)]
    /// Each domain's rule lists per app; `manifest: true` for an Android statement its manifest decides.
    var domains:
        [(
            host: String, apps: [(appID: String, rules: [JSONValue], manifest: Bool)], expect: [JSONValue]?,
            relatedOrigins: [JSONValue]?
        )]
    /// The hosts of each environment (`environments:`), in the file's order.
    var environments: [(name: String, hosts: [String])] = []

    static func load(_ path: String) throws -> ManifestFile {
        let text = String(decoding: try CLIOutput.read(path), as: UTF8.self)
        return try ManifestFile(path: path, json: try YAMLJSON.parse(text, file: path))
    }

    init(path: String, json: JSONValue) throws {
        self.path = path
        guard let root = json.objectValue else {
            throw CLIFailure("\(path): a manifest is a mapping with apps and domains")
        }
        for key in root.keys where !["team", "apps", "domains", "rules", "environments"].contains(key) {
            throw CLIFailure(
                "\(path): unknown key `\(key)`; a manifest has team, apps, domains, rules and environments")
        }
        if let team = root["team"] {
            guard let name = team.stringValue else { throw CLIFailure("\(path): team is a string") }
            self.team = name
        }
        apps = []
        for member in root["apps"]?.objectValue ?? [:] {
            switch member.value {
            case .null: apps.append((member.key, [:]))
            case .object(let settings):
                for key in settings.keys
                where !["services", "platform", "fingerprints", "rulesFrom", "builds"].contains(key) {
                    throw CLIFailure(
                        """
                        \(path): apps.\(member.key): unknown key `\(key)`; an app has services, platform, \
                        fingerprints, rulesFrom and builds
                        """
                    )
                }
                apps.append((member.key, settings))
            default:
                throw CLIFailure("\(path): apps.\(member.key) is a mapping (services, platform, fingerprints) or empty")
            }
        }
        if root["apps"] != nil && root["apps"]?.objectValue == nil {
            throw CLIFailure("\(path): apps is a mapping of app IDs")
        }
        domains = []
        for domain in root["domains"]?.objectValue ?? [:] {
            guard let byApp = domain.value.objectValue else {
                if domain.value == .null {
                    domains.append((domain.key, [], nil, nil))
                    continue
                }
                throw CLIFailure("\(path): domains.\(domain.key) is a mapping of app IDs to rule lists")
            }
            var entries: [(appID: String, rules: [JSONValue], manifest: Bool)] = []
            var expect: [JSONValue]?
            var relatedOrigins: [JSONValue]?
            for app in byApp {
                // Nor `relatedOrigins`: the team's entries of the domain's /.well-known/webauthn.
                if app.key == "relatedOrigins" {
                    guard let list = app.value.arrayValue else {
                        throw CLIFailure("\(path): domains.\(domain.key).relatedOrigins is a list of https origins")
                    }
                    relatedOrigins = list
                    continue
                }
                // `expect` cannot be an app ID (those have a Team ID and a dot): the golden URLs.
                if app.key == "expect" {
                    guard let list = app.value.arrayValue else {
                        throw CLIFailure("\(path): domains.\(domain.key).expect is a list of expectations")
                    }
                    expect = list
                    continue
                }
                switch app.value {
                case .array(let rules): entries.append((app.key, rules, false))
                case .null: entries.append((app.key, [], false))
                case .string("manifest"): entries.append((app.key, [], true))
                default:
                    throw CLIFailure("\(path): domains.\(domain.key).\(app.key) is a list of rules, or `manifest`")
                }
            }
            domains.append((domain.key, entries, expect, relatedOrigins))
        }
        if root["domains"] != nil && root["domains"]?.objectValue == nil && root["domains"] != .null {
            throw CLIFailure("\(path): domains is a mapping of hosts")
        }
        try readEnvironments(root)
    }

    /// `environments:` (environment → hosts) and `rules:` (app → rules, once): each host of each
    /// environment gets the rules, beside what `domains:` says of it.
    private mutating func readEnvironments(_ root: JSONObject) throws {
        for member in root["environments"]?.objectValue ?? [:] {
            guard let hosts = member.value.arrayValue?.compactMap(\.stringValue),
                hosts.count == member.value.arrayValue?.count
            else { throw CLIFailure("\(path): environments.\(member.key) is a list of hosts") }
            environments.append((member.key, hosts))
        }
        var once: [(appID: String, rules: [JSONValue], manifest: Bool)] = []
        for member in root["rules"]?.objectValue ?? [:] {
            if member.value == .string("manifest") {
                once.append((member.key, [], true))
                continue
            }
            guard let rules = member.value.arrayValue else {
                throw CLIFailure("\(path): rules.\(member.key) is a list of rules, or `manifest`")
            }
            once.append((member.key, rules, false))
        }
        guard !once.isEmpty else { return }
        guard !environments.isEmpty else {
            throw CLIFailure("\(path): rules: are written once for the domains under environments:; list them")
        }
        for host in environments.flatMap(\.hosts) {
            if let i = domains.firstIndex(where: { $0.host == host }) {
                for entry in once {
                    guard !domains[i].apps.contains(where: { $0.appID == entry.appID }) else {
                        throw CLIFailure(
                            "\(path): \(entry.appID)'s rules on \(host) are under both rules: and domains:; keep one")
                    }
                    domains[i].apps.append(entry)
                }
            } else {
                domains.append((host, once, nil, nil))
            }
        }
    }

    /// The manifest for one environment: its hosts only (the domains in no environment list too;
    /// the server leaves out those of another environment).
    func only(environment: String) throws -> ManifestFile {
        guard environments.isEmpty || environments.contains(where: { $0.name == environment }) else {
            throw CLIFailure("\(path): no environment \(environment) under environments:")
        }
        var copy = self
        let others = Set(environments.filter { $0.name != environment }.flatMap(\.hosts))
        copy.domains = domains.filter { !others.contains($0.host) }
        return copy
    }

    /// An app's `builds:` (environment → app ID, or → {appID, keys: ["SHA256@label"], playSigningAbsent})
    /// as the API's list.
    static func builds(_ value: JSONValue, app: String, path: String) throws -> JSONValue {
        guard let object = value.objectValue else {
            throw CLIFailure("\(path): apps.\(app).builds is a mapping of environments")
        }
        return .array(
            try object.map { member in
                var build: JSONObject = ["environment": .string(member.key)]
                if let id = member.value.stringValue {
                    build.append("appID", .string(id))
                    return .object(build)
                }
                guard let settings = member.value.objectValue, let id = settings["appID"]?.stringValue else {
                    throw CLIFailure("\(path): apps.\(app).builds.\(member.key) is an app ID or {appID, keys}")
                }
                build.append("appID", .string(id))
                if let keys = settings["keys"]?.arrayValue {
                    build.append(
                        "fingerprints",
                        .array(
                            try keys.map { key in
                                guard let text = key.stringValue, let at = text.lastIndex(of: "@") else {
                                    throw CLIFailure(
                                        "\(path): apps.\(app).builds.\(member.key).keys: each is SHA256@label")
                                }
                                return .object([
                                    "sha256": .string(String(text[..<at])),
                                    "label": .string(String(text[text.index(after: at)...])),
                                ])
                            }))
                }
                if let absent = settings["playSigningAbsent"] { build.append("playSigningAbsent", absent) }
                return .object(build)
            })
    }

    /// The body of `POST /v1/teams/{team}/manifest`.
    func body(publishReason: String? = nil, environment: String? = nil) throws -> JSONValue {
        var object: JSONObject = [
            "apps": .array(
                try apps.map { app in
                    var o: JSONObject = ["appID": .string(app.appID)]
                    for key in ["services", "platform", "fingerprints", "rulesFrom"] {
                        if let value = app.settings[key] { o.append(key, value) }
                    }
                    if let builds = app.settings["builds"] {
                        o.append("builds", try Self.builds(builds, app: app.appID, path: path))
                    }
                    return .object(o)
                }),
            "domains": .array(
                domains.map { domain in
                    var o: JSONObject = [
                        "host": .string(domain.host),
                        "apps": .array(
                            domain.apps.map {
                                var entry: JSONObject = ["appID": .string($0.appID), "rules": .array($0.rules)]
                                if $0.manifest { entry.append("manifestDecides", .bool(true)) }
                                return .object(entry)
                            }),
                    ]
                    if let expect = domain.expect { o.append("expect", .array(expect)) }
                    if let origins = domain.relatedOrigins { o.append("relatedOrigins", .array(origins)) }
                    return .object(o)
                }),
        ]
        if let publishReason {
            object.append("publish", .bool(true))
            object.append("reason", .string(publishReason))
        }
        if let environment { object.append("environment", .string(environment)) }
        return .object(object)
    }

    /// A body pointer (`/domains/0/apps/1/rules/2/~1`) in the file's terms
    /// (`domains["example.com"]["ABCDE12345.com.a"][2]["/"]`); other fields unchanged.
    func describe(_ field: String) -> String {
        guard field.hasPrefix("/") else { return field }
        var tokens = ArraySlice(
            field.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
                $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            })
        var out = ""
        func index(_ token: String?) -> Int? { token.flatMap(Int.init) }
        if tokens.first == "apps", let i = index(tokens.dropFirst().first), apps.indices.contains(i) {
            out = "apps[\(JSONWriter.quoted(apps[i].appID))]"
            tokens = tokens.dropFirst(2)
        } else if tokens.first == "domains", let i = index(tokens.dropFirst().first), domains.indices.contains(i) {
            let domain = domains[i]
            out = "domains[\(JSONWriter.quoted(domain.host))]"
            tokens = tokens.dropFirst(2)
            if tokens.first == "host" { return out }
            if tokens.first == "apps", let j = index(tokens.dropFirst().first), domain.apps.indices.contains(j) {
                out += "[\(JSONWriter.quoted(domain.apps[j].appID))]"
                tokens = tokens.dropFirst(2)
                if tokens.first == "appID" { return out }
                if tokens.first == "rules" {
                    tokens = tokens.dropFirst()
                }
            } else if tokens.first == "expect" || tokens.first == "relatedOrigins" {
                out += "." + (tokens.first ?? "")
                tokens = tokens.dropFirst()
            }
        } else {
            return field
        }
        for token in tokens { out += Int(token) != nil ? "[\(token)]" : "[\(JSONWriter.quoted(token))]" }
        return out
    }
}
