import AASAKernel
import AASAStore
import Foundation
import JWTKit

/// Each trusted issuer's signing keys, found through its discovery document
/// (`/.well-known/openid-configuration` → `jwks_uri`) and fetched with the probe's fetcher: its
/// TLS trust, limits and private-address rule. Kept for an hour; an unknown `kid` (a key
/// rotated in) fetches again, at most once a minute per issuer, so a flood of made-up `kid`s
/// costs the issuer one request a minute. Concurrent misses share one fetch.
///
/// Only RSA (RS256) and P-256 (ES256) signing keys are kept, each with the algorithm its type
/// fixes: the token's header must name that algorithm, so `alg` comes from the key, never from
/// the header alone (no `none`, no HS256 keyed with a public key).
package actor OIDCKeyCache {
    package struct Key: Sendable {
        package var keys: JWTKeyCollection
        package var algorithm: String
    }

    private struct Entry {
        var keys: JWTKeyCollection
        var algorithms: [String: String]
        var fetchedAt: ContinuousClock.Instant
    }

    private let fetcher: OutboundClient
    private let maxAge: Duration
    private let minRefetchGap: Duration
    private var entries: [String: Entry] = [:]
    private var lastAttempt: [String: ContinuousClock.Instant] = [:]
    private var inFlight: [String: Task<Entry, any Error>] = [:]
    /// Discovery documents, for the console's sign-in (its endpoints), by issuer URL.
    private var documents: [String: (document: OIDCDiscovery, fetchedAt: ContinuousClock.Instant)] = [:]
    private var documentAttempt: [String: ContinuousClock.Instant] = [:]
    private var documentInFlight: [String: Task<OIDCDiscovery, any Error>] = [:]
    /// Why the last fetch of each issuer's keys or document failed, said again within the refetch
    /// gap: "retry later" alone hid the cause (a private address, an untrusted certificate) from
    /// everyone after the first.
    private var lastFailure: [String: String] = [:]

    package init(fetcher: OutboundClient, maxAge: Duration = .seconds(3600), minRefetchGap: Duration = .seconds(60)) {
        self.fetcher = fetcher
        self.maxAge = maxAge
        self.minRefetchGap = minRefetchGap
    }

    /// The issuer's key `kid`, fetching the keys when they are missing, old, or lack it (within
    /// the refetch bound). No `kid`: the issuer's only key, when it has exactly one (jwt-kit then
    /// verifies with the collection's default key, which is that one).
    package func key(_ kid: String?, of issuer: OIDCIssuerRecord) async throws(ExchangeRefusal) -> Key {
        func pick(_ entry: Entry) -> String? {
            if let kid { return entry.algorithms[kid] }
            return entry.algorithms.count == 1 ? entry.algorithms.values.first : nil
        }
        let now = ContinuousClock.now
        let cached = entries[issuer.issuer]
        // A fetch under way is joined; a new one waits out the gap since the last.
        let mayFetch =
            inFlight[issuer.issuer] != nil || lastAttempt[issuer.issuer].map { now - $0 >= minRefetchGap } ?? true
        if let cached, let algorithm = pick(cached), now - cached.fetchedAt < maxAge || !mayFetch {
            return Key(keys: cached.keys, algorithm: algorithm)
        }
        guard mayFetch else {
            // Within the gap after the last fetch: no new one, whether it failed or lacked the kid,
            // so an issuer that is down is not asked again on every exchange.
            let wait = lastAttempt[issuer.issuer].map { Self.seconds(minRefetchGap - (now - $0)) }
            throw cached == nil
                ? ExchangeRefusal(
                    .keysUnavailable,
                    lastFailure[issuer.issuer].map { "\($0); not asked again for \(wait ?? 1) s" }
                        ?? "\(issuer.name)'s keys could not be fetched; retry later", retryAfter: wait)
                : ExchangeRefusal(.unknownKey, "the token's kid is not one of \(issuer.name)'s keys")
        }
        do {
            let fresh = try await refresh(issuer)
            if let algorithm = pick(fresh) { return Key(keys: fresh.keys, algorithm: algorithm) }
        } catch {
            // An issuer that cannot be reached: keys already held still verify.
            if let cached, let algorithm = pick(cached) {
                return Key(keys: cached.keys, algorithm: algorithm)
            }
            var refusal =
                (error as? ExchangeRefusal)
                ?? ExchangeRefusal(.keysUnavailable, "\(issuer.name)'s keys could not be fetched")
            refusal.retryAfter = Self.seconds(minRefetchGap)
            lastFailure[issuer.issuer] = refusal.message
            throw refusal
        }
        throw ExchangeRefusal(.unknownKey, "the token's kid is not one of \(issuer.name)'s keys")
    }

    /// The issuer's discovery document, kept as long as its keys are; a failed fetch is not
    /// repeated within the refetch gap, so a provider that is down costs it one request a gap.
    /// The document must name the issuer it was fetched for (OpenID Connect Discovery §4.3).
    /// A fetch under way is joined, as the keys' is: on a fresh replica, five of six simultaneous
    /// sign-ins were refused 503 while the first fetched the document.
    package func discovery(of issuer: OIDCIssuerRecord) async throws(ExchangeRefusal) -> OIDCDiscovery {
        let now = ContinuousClock.now
        if let cached = documents[issuer.issuer], now - cached.fetchedAt < maxAge { return cached.document }
        let running = documentInFlight[issuer.issuer]
        if running == nil, let last = documentAttempt[issuer.issuer], now - last < minRefetchGap {
            if let cached = documents[issuer.issuer] { return cached.document }
            let wait = Self.seconds(minRefetchGap - (now - last))
            throw ExchangeRefusal(
                .keysUnavailable,
                lastFailure[issuer.issuer].map { "\($0); not asked again for \(wait) s" }
                    ?? "\(issuer.name)'s discovery document could not be fetched; retry later",
                retryAfter: wait)
        }
        let task: Task<OIDCDiscovery, any Error>
        if let running {
            task = running
        } else {
            documentAttempt[issuer.issuer] = now
            let fetcher = fetcher
            task = Task {
                let document = try await Self.json(
                    OIDCDiscovery.self, Self.discoveryURL(issuer), fetcher: fetcher, issuer: issuer)
                guard document.issuer == issuer.issuer else {
                    throw ExchangeRefusal(
                        .untrustedIssuer, "\(issuer.name)'s discovery document names another issuer")
                }
                return document
            }
            documentInFlight[issuer.issuer] = task
        }
        do {
            let document = try await task.value
            if running == nil {
                documentInFlight[issuer.issuer] = nil
                documents[issuer.issuer] = (document, now)
            }
            return document
        } catch {
            if running == nil { documentInFlight[issuer.issuer] = nil }
            if let cached = documents[issuer.issuer] { return cached.document }
            let refusal =
                (error as? ExchangeRefusal)
                ?? ExchangeRefusal(.keysUnavailable, "\(issuer.name)'s discovery document could not be fetched")
            lastFailure[issuer.issuer] = refusal.message
            throw refusal
        }
    }

    private static func discoveryURL(_ issuer: OIDCIssuerRecord) -> String {
        let base = issuer.issuer.hasSuffix("/") ? String(issuer.issuer.dropLast()) : issuer.issuer
        return base + "/.well-known/openid-configuration"
    }

    /// Whole seconds, rounded up, at least one.
    private static func seconds(_ duration: Duration) -> Int {
        max(1, Int((duration.milliseconds / 1000).rounded(.up)))
    }

    private func refresh(_ issuer: OIDCIssuerRecord) async throws -> Entry {
        if let running = inFlight[issuer.issuer] { return try await running.value }
        lastAttempt[issuer.issuer] = .now
        let fetcher = fetcher
        let task = Task { try await Self.fetch(issuer, fetcher: fetcher) }
        inFlight[issuer.issuer] = task
        defer { inFlight[issuer.issuer] = nil }
        let entry = try await task.value
        entries[issuer.issuer] = entry
        return entry
    }

    private static func fetch(_ issuer: OIDCIssuerRecord, fetcher: OutboundClient) async throws -> Entry {
        let base = issuer.issuer.hasSuffix("/") ? String(issuer.issuer.dropLast()) : issuer.issuer
        let discovery = try await json(
            OIDCDiscovery.self, base + "/.well-known/openid-configuration", fetcher: fetcher, issuer: issuer)
        guard let jwksURI = discovery.jwksURI, jwksURI.hasPrefix("https://") else {
            throw ExchangeRefusal(.keysUnavailable, "\(issuer.name)'s discovery document names no https jwks_uri")
        }
        let jwks = try await json(JWKSet.self, jwksURI, fetcher: fetcher, issuer: issuer)
        let keys = JWTKeyCollection()
        var algorithms: [String: String] = [:]
        for member in jwks.keys {
            guard var jwk = member.jwk, let kid = jwk.keyIdentifier?.string, (member.use ?? "sig") == "sig",
                let algorithm = algorithm(of: jwk)
            else { continue }
            jwk.algorithm = algorithm
            guard (try? await keys.add(jwk: jwk)) != nil else { continue }
            algorithms[kid] = algorithm.rawValue
        }
        return Entry(keys: keys, algorithms: algorithms, fetchedAt: .now)
    }

    /// The algorithm a key's type fixes: RS256 for RSA, ES256 for P-256; nil for a key of
    /// another type, or one whose own `alg` says otherwise.
    static func algorithm(of key: JWK) -> JWK.Algorithm? {
        let fixed: JWK.Algorithm
        switch key.keyType {
        case .rsa: fixed = .rs256
        case .ecdsa where key.curve == .ecdsa(.p256): fixed = .es256
        default: return nil
        }
        if let stated = key.algorithm, stated != fixed { return nil }
        return fixed
    }

    /// Why a fetch gave nothing usable, in words for a refusal (no certificate or key material).
    package static func why(_ fetched: Fetched) -> String {
        switch fetched.failure {
        case .tls: "its TLS certificate is not trusted"
        case .timeout: "no answer in time"
        case .tooLarge: "the answer is too large"
        case .privateAddress(let host, let address):
            "\(host) resolves to a private address (\(address)), which aasad's outbound rule refuses: to trust "
                + "this host alone, name its address in AASA_PROBE_RESOLVE (\(host)=\(address)); "
                + "AASA_PROBE_ALLOW_PRIVATE=1 allows every private address, for the probe and webhooks too"
        case .unreachable: "it could not be reached"
        case nil: fetched.status.map { "HTTP \($0)" } ?? "no answer"
        }
    }

    private static func json<Document: Decodable>(
        _ type: Document.Type, _ url: String, fetcher: OutboundClient, issuer: OIDCIssuerRecord
    ) async throws -> Document {
        let fetched = await fetcher.fetch(url)
        guard fetched.status == 200, let bytes = fetched.bytes,
            let document = try? JSONDecoder().decode(Document.self, from: Data(bytes))
        else {
            throw ExchangeRefusal(
                .keysUnavailable,
                "\(issuer.name)'s keys could not be fetched (\(Self.why(fetched)))")
        }
        return document
    }
}
