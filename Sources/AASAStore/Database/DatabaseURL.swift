import Foundation
import NIOSSL
import PostgresNIO

/// A `postgres://user:password@host:port/database?sslmode=…` URL, the one way aasad and its tests
/// are told where PostgreSQL is. `sslmode` is `disable` (default), `prefer` or `require`.
public struct DatabaseURL: Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var sslMode: String

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
        self.host = host
        self.port = url.port ?? 5432
        self.username = url.user ?? "postgres"
        self.password = url.password
        self.database = database
        self.sslMode = url.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "disable"
        guard ["disable", "prefer", "require"].contains(sslMode) else {
            throw Invalid(description: "DATABASE_URL sslmode must be disable, prefer or require")
        }
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
        let tls: PostgresClient.Configuration.TLS =
            switch sslMode {
            case "require": .require(.makeClientConfiguration())
            case "prefer": .prefer(.makeClientConfiguration())
            default: .disable
            }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }
}
