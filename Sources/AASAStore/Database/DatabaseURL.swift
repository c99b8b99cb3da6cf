import Foundation
import NIOSSL
import PostgresNIO

/// A `postgres://user:password@host:port/database?sslmode=…&sslrootcert=…` URL, the one way aasad
/// and its tests are told where PostgreSQL is (`resolve` also reads libpq's variables).
///
/// `sslmode`: `disable` (the default), `prefer`, `require`, `verify-ca` or `verify-full`. Stricter
/// than libpq where it matters: `require` verifies the certificate and host name as `verify-full`
/// does (a TLS connection that trusts any certificate protects nothing from an active attacker);
/// `verify-ca` verifies the certificate's chain but not its host name. The roots are the system's,
/// or `sslrootcert`'s (a PEM file) alone.
public struct DatabaseURL: Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var sslMode: String
    /// A PEM file of the only roots a TLS connection trusts; nil: the system's.
    public var sslRootCertificate: String?
    /// Whether the URL named an `sslmode` (else `PGSSLMODE` may).
    var sslModeGiven: Bool

    public static let sslModes = ["disable", "prefer", "require", "verify-ca", "verify-full"]

    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    public init(_ string: String) throws {
        guard let url = URLComponents(string: string), let scheme = url.scheme,
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw Invalid(description: "DATABASE_URL must look like postgres://user[:password]@host[:port]/database")
        }
        guard let host = url.host, !host.isEmpty else { throw Invalid(description: "DATABASE_URL has no host") }
        let database = String(url.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else { throw Invalid(description: "DATABASE_URL names no database") }
        self.init(host: host, port: url.port ?? 5432, username: url.user ?? "postgres", database: database)
        self.password = url.password
        if let mode = url.queryItems?.first(where: { $0.name == "sslmode" })?.value {
            try setSSLMode(mode, source: "DATABASE_URL sslmode")
        }
        self.sslRootCertificate = url.queryItems?.first(where: { $0.name == "sslrootcert" })?.value
    }

    init(host: String, port: Int, username: String, database: String) {
        self.host = host
        self.port = port
        self.username = username
        self.password = nil
        self.database = database
        self.sslMode = "disable"
        self.sslModeGiven = false
    }

    mutating func setSSLMode(_ mode: String, source: String) throws {
        guard Self.sslModes.contains(mode) else {
            throw Invalid(description: "\(source) must be one of \(Self.sslModes.joined(separator: ", ")), not \(mode)")
        }
        sslMode = mode
        sslModeGiven = true
    }

    /// The same server and credentials, another database (tests clone databases this way).
    public func with(database: String) -> DatabaseURL {
        var copy = self
        copy.database = database
        return copy
    }

    /// The URL without its password, for logs.
    public var description: String {
        "postgres://\(username)@\(host):\(port)/\(database)"
    }

    public func clientConfiguration(maximumConnections: Int = 20) -> PostgresClient.Configuration {
        var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
        if let sslRootCertificate { tlsConfiguration.trustRoots = .file(sslRootCertificate) }
        if sslMode == "verify-ca" { tlsConfiguration.certificateVerification = .noHostnameVerification }
        let tls: PostgresClient.Configuration.TLS =
            switch sslMode {
            case "require", "verify-ca", "verify-full": .require(tlsConfiguration)
            case "prefer": .prefer(tlsConfiguration)
            default: .disable
            }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }
}
