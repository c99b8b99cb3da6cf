import Foundation

/// The console's OpenID providers (`AASA_CONSOLE_OIDC_FILE`, a JSON file beside the credentials
/// file): read once at start-up. A client secret is never in the file itself, only where to read
/// it (a file, or an environment variable), and it is never logged or shown.
public struct ConsoleOIDCConfig: Sendable {
    public struct Provider: Sendable {
        /// A short name, in URLs and the mappings (`corp`): 1 to 32 lower-case letters, digits and hyphens.
        public var name: String
        /// What the sign-in button says.
        public var displayName: String
        public var issuer: String
        public var clientID: String
        /// Read at start-up from `clientSecretFile` or `clientSecretEnv`; nil for a public client.
        public var clientSecret: Secret?
        public var scopes: [String]
        /// Where the groups are in the ID token: a claim name, or a dotted path for nested claims
        /// (`realm_access.roles` for Keycloak's realm roles).
        public var groupsClaim: [String]
        /// When not empty, only people whose verified email is at one of these domains sign in.
        public var allowedDomains: [String]
        /// When not empty, only people in one of these groups sign in.
        public var allowedGroups: [String]
        /// `client_secret_basic` (the default) or `client_secret_post`.
        public var tokenEndpointAuth: String
    }

    /// A secret that prints as `<redacted>`, so no log line or error message can carry it.
    public struct Secret: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        let value: String
        public var description: String { "<redacted>" }
        public var debugDescription: String { "<redacted>" }
    }

    /// The console's public URL (`https://aasa.example.com`): the providers send the browser back
    /// to `<baseURL>/console/sign-in/oidc/<name>/callback`, and after a logout to the sign-in page.
    public let baseURL: String
    public let providers: [Provider]
    /// The providers' issuer origins (`https://host[:port]`), worked out once: the console's
    /// `form-action` lists them, since signing out may end at one of them.
    public let issuerOrigins: [String]

    init(baseURL: String, providers: [Provider]) {
        self.baseURL = baseURL
        self.providers = providers
        issuerOrigins = providers.compactMap { provider in
            URLComponents(string: provider.issuer).flatMap { url in
                url.host.map { host in "https://\(host)" + (url.port.map { ":\($0)" } ?? "") }
            }
        }
    }

    public func provider(named name: String) -> Provider? { providers.first { $0.name == name } }

    public func redirectURI(_ provider: Provider) -> String {
        "\(baseURL)/console/sign-in/oidc/\(provider.name)/callback"
    }

    public var signInURL: String { "\(baseURL)/console/sign-in" }

    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    private struct File: Decodable {
        var baseURL: String
        var providers: [Entry]
    }

    private struct Entry: Decodable {
        var name: String
        var displayName: String?
        var issuer: String
        var clientID: String
        var clientSecret: String?
        var clientSecretFile: String?
        var clientSecretEnv: String?
        var scopes: [String]?
        var groupsClaim: String?
        var allowedDomains: [String]?
        var allowedGroups: [String]?
        var tokenEndpointAuth: String?
    }

    /// The file at `path`, its secrets read as it says; any mistake stops start-up with its reason.
    public static func load(path: String, environment: [String: String]) throws -> ConsoleOIDCConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Invalid(description: "\(path) cannot be read")
        }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw Invalid(description: "\(path) is not a console OIDC file: \(error)")
        }
        let base = file.baseURL.hasSuffix("/") ? String(file.baseURL.dropLast()) : file.baseURL
        guard let url = URLComponents(string: base), ["https", "http"].contains(url.scheme ?? ""), url.host != nil,
            url.query == nil, url.path.isEmpty
        else { throw Invalid(description: "\(path): baseURL is the console's origin, as https://aasa.example.com") }
        var providers: [Provider] = []
        for entry in file.providers {
            providers.append(try provider(entry, path: path, environment: environment))
        }
        guard Set(providers.map(\.name)).count == providers.count else {
            throw Invalid(description: "\(path): two providers have the same name")
        }
        return ConsoleOIDCConfig(baseURL: base, providers: providers)
    }

    private static func provider(_ entry: Entry, path: String, environment: [String: String]) throws -> Provider {
        let at = "\(path): provider \(entry.name)"
        guard entry.name.range(of: "^[a-z0-9][a-z0-9-]{0,31}$", options: .regularExpression) != nil else {
            throw Invalid(description: "\(at): name is 1 to 32 lower-case letters, digits and hyphens")
        }
        guard let issuer = URLComponents(string: entry.issuer), issuer.scheme == "https", issuer.host != nil else {
            throw Invalid(description: "\(at): issuer is an https URL")
        }
        guard !entry.clientID.isEmpty, entry.clientID.utf8.count <= 255 else {
            throw Invalid(description: "\(at): clientID is 1 to 255 characters")
        }
        guard entry.clientSecret == nil else {
            throw Invalid(
                description:
                    "\(at): a client secret is never written in this file; name clientSecretFile or clientSecretEnv"
            )
        }
        var secret: Secret?
        if let file = entry.clientSecretFile {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw Invalid(description: "\(at): clientSecretFile \(file) cannot be read")
            }
            secret = Secret(
                value: String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        } else if let name = entry.clientSecretEnv {
            guard let value = environment[name], !value.isEmpty else {
                throw Invalid(description: "\(at): clientSecretEnv names \(name), which is not set")
            }
            secret = Secret(value: value)
        }
        let auth = entry.tokenEndpointAuth ?? "client_secret_basic"
        guard ["client_secret_basic", "client_secret_post"].contains(auth) else {
            throw Invalid(description: "\(at): tokenEndpointAuth is client_secret_basic or client_secret_post")
        }
        var scopes = entry.scopes ?? ["openid", "email", "profile"]
        if !scopes.contains("openid") { scopes.insert("openid", at: 0) }
        let claim = (entry.groupsClaim ?? "groups").split(separator: ".").map(String.init)
        guard !claim.isEmpty else { throw Invalid(description: "\(at): groupsClaim is a claim name or a dotted path") }
        return Provider(
            name: entry.name, displayName: entry.displayName ?? entry.name, issuer: entry.issuer,
            clientID: entry.clientID, clientSecret: secret, scopes: scopes, groupsClaim: claim,
            allowedDomains: (entry.allowedDomains ?? []).map { $0.lowercased() },
            allowedGroups: entry.allowedGroups ?? [],
            tokenEndpointAuth: auth)
    }
}
