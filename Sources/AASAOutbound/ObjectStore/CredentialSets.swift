import AASAKernel
import Foundation
import Synchronization

/// The credential sets targets name, from aasad's configuration only: never from the API or the
/// database, so a target row or an answer can name a set and never hold a secret.
///
/// - `default`: the AWS conventions of the environment: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`
///   and `AWS_SESSION_TOKEN`; or `AWS_WEB_IDENTITY_TOKEN_FILE` and `AWS_ROLE_ARN` (STS
///   `AssumeRoleWithWebIdentity`, what EKS and GitHub's OIDC give a pod or a job; `AWS_ENDPOINT_URL_STS`
///   and `AWS_ROLE_SESSION_NAME` as the SDKs read them).
/// - named sets in the JSON file `--credentials-file` points at (which may also define `default`):
///   `{"name": {"accessKeyID": …, "secretAccessKey": …, "sessionToken": …}}`,
///   `{"name": {"webIdentityTokenFile": …, "roleARN": …, "stsEndpoint": …}}` or
///   `{"name": {"bearerToken": …}}` (Cloudflare's API token, an HTTP purge's bearer).
package final class CredentialSets: Sendable {
    package enum Source: Sendable {
        case keys(AWSKeys)
        case webIdentity(tokenFile: String, roleARN: String, sessionName: String, stsEndpoint: String)
        case bearer(String)
    }

    package struct Failure: Error, CustomStringConvertible, Sendable {
        package var description: String
    }

    private let sources: [String: Source]
    private let http: ObjectStoreHTTP
    /// Temporary keys from STS, per set, until shortly before they expire.
    private let assumed = Mutex<[String: AWSKeys]>([:])

    package init(sources: [String: Source], http: ObjectStoreHTTP) {
        self.sources = sources
        self.http = http
    }

    /// The sets of the environment and the file. A file that cannot be read or parsed stops aasad
    /// at start-up (naming the file and the set, never a value).
    package static func load(file: String?, environment: [String: String], http: ObjectStoreHTTP) throws
        -> CredentialSets
    {
        var sources: [String: Source] = [:]
        if let keys = environment["AWS_ACCESS_KEY_ID"], let secret = environment["AWS_SECRET_ACCESS_KEY"] {
            sources["default"] = .keys(
                AWSKeys(accessKeyID: keys, secretAccessKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"]))
        } else if let tokenFile = environment["AWS_WEB_IDENTITY_TOKEN_FILE"], let role = environment["AWS_ROLE_ARN"] {
            sources["default"] = .webIdentity(
                tokenFile: tokenFile, roleARN: role, sessionName: environment["AWS_ROLE_SESSION_NAME"] ?? "aasad",
                stsEndpoint: environment["AWS_ENDPOINT_URL_STS"] ?? "https://sts.amazonaws.com")
        }
        if let file {
            guard let data = FileManager.default.contents(atPath: file),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { throw Failure(description: "the credentials file \(file) is not a readable JSON object") }
            for (name, value) in object {
                guard let set = value as? [String: String] else {
                    throw Failure(description: "credential set \(name) in \(file) is not an object of strings")
                }
                sources[name] = try source(set, name: name, file: file)
            }
        }
        return CredentialSets(sources: sources, http: http)
    }

    private static func source(_ set: [String: String], name: String, file: String) throws -> Source {
        if let id = set["accessKeyID"], let secret = set["secretAccessKey"] {
            return .keys(AWSKeys(accessKeyID: id, secretAccessKey: secret, sessionToken: set["sessionToken"]))
        }
        if let tokenFile = set["webIdentityTokenFile"], let role = set["roleARN"] {
            return .webIdentity(
                tokenFile: tokenFile, roleARN: role, sessionName: set["sessionName"] ?? "aasad",
                stsEndpoint: set["stsEndpoint"] ?? "https://sts.amazonaws.com")
        }
        if let token = set["bearerToken"] { return .bearer(token) }
        throw Failure(
            description: """
                credential set \(name) in \(file) has neither accessKeyID and secretAccessKey, nor \
                webIdentityTokenFile and roleARN, nor bearerToken
                """)
    }

    /// The names of the sets this server has (what a target may name).
    package var names: Set<String> { Set(sources.keys) }

    /// The AWS keys of a set, assuming the role first for a web-identity set (cached until five
    /// minutes before the keys expire; the token file is read again each time, as it rotates).
    package func awsKeys(_ name: String, region: String) async throws -> AWSKeys {
        switch sources[name] {
        case .keys(let keys): return keys
        case .webIdentity(let tokenFile, let role, let session, let endpoint):
            if let cached = assumed.withLock({ $0[name] }), let expiration = cached.expiration,
                expiration.timeIntervalSinceNow > 300
            {
                return cached
            }
            let keys = try await WebIdentity.assumeRole(
                tokenFile: tokenFile, roleARN: role, sessionName: session, endpoint: endpoint, http: http)
            assumed.withLock { $0[name] = keys }
            return keys
        case .bearer: throw Failure(description: "credential set \(name) is a bearer token, not AWS keys")
        case nil: throw Failure(description: "this server has no credential set \(name)")
        }
    }

    /// The bearer token of a set (Cloudflare, an HTTP purge).
    package func bearerToken(_ name: String) throws -> String {
        switch sources[name] {
        case .bearer(let token): return token
        case nil: throw Failure(description: "this server has no credential set \(name)")
        default: throw Failure(description: "credential set \(name) is AWS keys, not a bearer token")
        }
    }
}
