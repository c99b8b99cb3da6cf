import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServer
import AASAServices
import AASAStore
import ArgumentParser
import Foundation
import Hummingbird
import Logging
import PostgresNIO

@main
struct AASAD: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aasad",
        abstract: "The apple-app-site-association service: REST API on PostgreSQL.",
        discussion: """
            Environment: DATABASE_URL (or libpq's PGHOST, PGPORT, PGUSER, PGPASSWORD or PGPASSFILE, PGDATABASE, \
            PGSSLMODE, PGSSLROOTCERT), AASA_LISTEN (host:port), AASA_MIGRATIONS_DIR, LOG_LEVEL.
            A flag wins over its environment variable.
            """,
        version: ProductVersion.current,
        subcommands: [Serve.self, Migrate.self, TokenCommand.self, Publish.self],
        defaultSubcommand: Serve.self)
}

/// Options every subcommand shares: where the database is and which migrations this build expects.
/// The directories web roots must lie in, for every command that writes one (serve, publish --all):
/// one reading of the flag and `AASA_WEB_ROOT_BASES`, so reconciliation keeps to the server's bases.
struct WebRootBaseOptions: ParsableArguments {
    @Option(
        name: .customLong("web-root-base"),
        help: """
            A directory domain web roots must lie in; repeat for several \
            (env AASA_WEB_ROOT_BASES, colon-separated; default: any)
            """)
    var webRootBases: [String] = []

    /// The flag's directories, else the environment's.
    var resolved: [String] {
        guard webRootBases.isEmpty else { return webRootBases }
        return (ProcessInfo.processInfo.environment["AASA_WEB_ROOT_BASES"] ?? "").split(separator: ":").map(String.init)
    }
}

struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("database-url"), help: "postgres://user[:password]@host[:port]/database (env DATABASE_URL)")
    var databaseURL: String?

    @Option(
        name: .customLong("migrations"),
        help: "Directory of NNNN_name.sql files (env AASA_MIGRATIONS_DIR, default ./migrations)")
    var migrationsDirectory: String?

    @Option(
        name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error (env LOG_LEVEL, default info)"
    )
    var logLevel: String?

    var environment: [String: String] { ProcessInfo.processInfo.environment }

    func url() throws -> DatabaseURL {
        do { return try DatabaseURL.resolve(databaseURL, environment: environment) } catch {
            throw ValidationError("\(error)")
        }
    }

    var migrations: String { migrationsDirectory ?? environment["AASA_MIGRATIONS_DIR"] ?? "migrations" }

    func level() throws -> Logger.Level {
        let raw = logLevel ?? environment["LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: raw) else { throw ValidationError("unknown log level \(raw)") }
        return level
    }

    func logger() throws -> Logger {
        var logger = Logger(label: "aasad")
        logger.logLevel = try level()
        return logger
    }

    /// Runs `body` with a running pool, then shuts the pool down.
    func withDatabase<T: Sendable>(_ body: @Sendable @escaping (Database, Logger) async throws -> T) async throws -> T {
        let logger = try logger()
        let client = PostgresClient(
            configuration: try url().clientConfiguration(maximumConnections: 2), backgroundLogger: logger)
        // Leases wait until the pool's run loop has started (PostgresNIO warns otherwise).
        let start = ClientStart()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                start.open()
                await client.run()
                return nil
            }
            defer { group.cancelAll() }
            return try await body(Database(client: client, start: start), logger)
        }
    }
}
