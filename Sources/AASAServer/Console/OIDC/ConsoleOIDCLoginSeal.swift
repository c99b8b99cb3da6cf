import AASAKernel
import AASAStore
import Crypto
import Foundation
import Logging

/// A provider sign-in under way: its `state`, `nonce` and PKCE seed (`binding`), for one provider,
/// started at `started` (Unix seconds).
struct ConsoleOIDCLogin: Codable, Equatable {
    var provider: String
    var state: String
    var nonce: String
    var binding: String
    var started: Int64
}

/// A sign-in under way travels in the browser's binding cookie, sealed (AES-GCM) with the key every
/// replica shares, so nothing is stored before the provider answers (the usual OpenID client
/// design). Before, each start stored a row, bounded only globally: one client filled the bound in
/// two minutes and everyone's provider sign-in was 503 from then on. The seal makes the cookie
/// unreadable and unforgeable; its age is checked when it comes back; once the answer is taken the
/// cookie is cleared, and the provider's code is good once, so an answer cannot be replayed.
struct ConsoleOIDCLoginSeal: Sendable {
    /// Bound into every seal, so a cookie sealed for another purpose with the same key never opens here.
    static let purpose = Array("aasad console sign-in v1".utf8)
    /// A sealed cookie is at most this long (the four fields are bounded); longer is not one of ours.
    static let maxCookieLength = 1024

    let key: SymmetricKey

    init(key: SymmetricKey) {
        self.key = key
    }

    /// A seal under the 32 bytes of a key as `console_sign_in_keys` holds it.
    init(keyBytes: [UInt8]) {
        key = SymmetricKey(data: keyBytes)
    }

    func seal(_ login: ConsoleOIDCLogin) throws -> String {
        let plain = try JSONEncoder().encode(login)
        let box = try AES.GCM.seal(plain, using: key, authenticating: Self.purpose)
        guard let combined = box.combined else { throw SealFailed() }
        return ConsoleCookie.base64URL(Array(combined))
    }

    /// The sign-in a cookie carries, nil when it was not sealed with this key (forged, altered, or
    /// from another installation).
    func open(_ cookie: String) -> ConsoleOIDCLogin? {
        guard cookie.utf8.count <= Self.maxCookieLength, let bytes = ConsoleCookie.base64URLDecoded(cookie),
            let box = try? AES.GCM.SealedBox(combined: bytes),
            let plain = try? AES.GCM.open(box, using: key, authenticating: Self.purpose)
        else { return nil }
        return try? JSONDecoder().decode(ConsoleOIDCLogin.self, from: plain)
    }

    struct SealFailed: Error {}
}

/// The shared key, read (or made, by the first replica to ask) once per process.
actor ConsoleSignInKey {
    private var key: SymmetricKey?
    private let database: Database

    init(database: Database) {
        self.database = database
    }

    func sealer(logger: Logger) async throws -> ConsoleOIDCLoginSeal {
        if let key { return ConsoleOIDCLoginSeal(key: key) }
        let candidate = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        let bytes = try await RequestWork(database: database, logger: logger).transaction { session in
            try await session.consoleSignInKey(candidate: candidate)
        }
        let loaded = SymmetricKey(data: bytes)
        key = loaded
        return ConsoleOIDCLoginSeal(key: loaded)
    }
}
