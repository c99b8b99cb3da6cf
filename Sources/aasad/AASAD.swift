import AASAModel
import AASAServer
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
            Environment: DATABASE_URL, AASA_LISTEN (host:port), AASA_MIGRATIONS_DIR, LOG_LEVEL.
            A flag wins over its environment variable.
            """,
        subcommands: [Serve.self, Migrate.self, TokenCommand.self, Publish.self],
        defaultSubcommand: Serve.self)
}

/// Options every subcommand shares: where the database is and which migrations this build expects.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("database-url"), help: "postgres://user[:password]@host[:port]/database (env DATABASE_URL)")
    var databaseURL: String?

    @Option(name: .customLong("migrations"), help: "Directory of NNNN_name.sql files (env AASA_MIGRATIONS_DIR, default ./migrations)")
    var migrationsDirectory: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error (env LOG_LEVEL, default info)")
    var logLevel: String?

    var environment: [String: String] { ProcessInfo.processInfo.environment }

    func url() throws -> DatabaseURL {
        guard let raw = databaseURL ?? environment["DATABASE_URL"] else {
            throw ValidationError("set DATABASE_URL or --database-url")
        }
        do { return try DatabaseURL(raw) } catch { throw ValidationError("\(error)") }
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
        let client = PostgresClient(configuration: try url().clientConfiguration(maximumConnections: 2), backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { await client.run(); return nil }
            // Let the pool's run loop start before the first lease (PostgresNIO warns otherwise).
            try await Task.sleep(for: .milliseconds(20))
            defer { group.cancelAll() }
            return try await body(Database(client: client), logger)
        }
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the API (refuses a database whose migrations differ from this build's).")

    @OptionGroup var database: DatabaseOptions

    @Option(name: .customLong("listen"), help: "host:port to listen on (env AASA_LISTEN, default 127.0.0.1:8080)")
    var listen: String?

    @Option(help: "Largest request body accepted, in bytes")
    var maxBodyBytes: Int = 1 << 20

    @Option(help: "Maximum PostgreSQL connections in the pool")
    var databaseConnections: Int = 20

    @Option(name: .customLong("web-root-base"),
            help: "A directory domain web roots must lie in; repeat for several (env AASA_WEB_ROOT_BASES, colon-separated; default: any)")
    var webRootBases: [String] = []

    @Option(help: "The most rules one team may keep on one domain (env AASA_MAX_RULES_PER_TEAM, default 1000)")
    var maxRulesPerTeam: Int?

    func run() async throws {
        let address = listen ?? database.environment["AASA_LISTEN"] ?? "127.0.0.1:8080"
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]) else {
            throw ValidationError("--listen must be host:port")
        }
        var config = AppConfig(host: String(address[..<colon]), port: port, databaseURL: try database.url(),
                               migrationsDirectory: database.migrations, logLevel: try database.level(),
                               maxBodyBytes: maxBodyBytes, databaseConnections: databaseConnections,
                               webRootBases: webRootBases.isEmpty
                                   ? (database.environment["AASA_WEB_ROOT_BASES"] ?? "").split(separator: ":").map(String.init)
                                   : webRootBases)
        config.skipValidationForBenchmark = database.environment["AASA_BENCHMARK_SKIP_VALIDATION"] == "1"
        if let cap = maxRulesPerTeam ?? database.environment["AASA_MAX_RULES_PER_TEAM"].flatMap({ Int($0) }) {
            config.maxRulesPerTeamPerDomain = cap
        }
        let app = try buildApplication(config: config)
        try await app.runService()
    }
}

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply pending migrations (under an advisory lock), or show their status.")

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Only report which migrations are applied and pending; exit 1 if the database is not current")
    var status = false

    func run() async throws {
        let migrator = Migrator(files: try MigrationFile.load(from: database.migrations))
        let statusOnly = status
        let current = try await database.withDatabase { db, logger in
            try await db.read(logger: logger) { session -> Bool in
                if statusOnly {
                    let s = try await migrator.status(session)
                    print("applied: \(s.applied.map(String.init).joined(separator: ", "))")
                    print("pending: \(s.pending.map(String.init).joined(separator: ", "))")
                    for problem in s.problems { print("problem: \(problem)") }
                    return s.isCurrent
                }
                let applied = try await migrator.migrate(session)
                print(applied.isEmpty ? "the database is current" : "applied: \(applied.map(String.init).joined(separator: ", "))")
                return true
            }
        }
        if !current { throw ExitCode(1) }
    }
}

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "token", abstract: "Tokens made on the server host.",
                                                    subcommands: [Create.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an organisation admin token and print it (once) on stdout.")

        @OptionGroup var database: DatabaseOptions

        @Flag(help: "An admin token (the only kind made here; team tokens come from the API)")
        var admin = false

        @Option(help: "A name that says who or what holds the token")
        var name: String

        @Option(help: "Days until the token expires (default: never)")
        var expiresInDays: Int?

        func validate() throws {
            guard admin else { throw ValidationError("pass --admin: team tokens are made through the API") }
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--name must not be empty") }
        }

        func run() async throws {
            let name = self.name
            let expiry = expiresInDays.map { Date().addingTimeInterval(Double($0) * 86_400) }
            let token = try await database.withDatabase { db, logger in
                try await db.transaction(logger: logger) { session in
                    try await Migrator(files: try MigrationFile.load(from: database.migrations)).verify(session)
                    return try await TokenIssuer.createAdminToken(session, name: name, expiresAt: expiry)
                }
            }
            print(token)
        }
    }
}

struct Publish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Reconcile every web root with its domain's current revision (rewrite missing or edited files).")

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Every domain (the only mode: publishing new revisions goes through the API)")
    var all = false

    func validate() throws {
        guard all else { throw ValidationError("pass --all") }
    }

    func run() async throws {
        let summary = try await database.withDatabase { db, logger in
            try await db.read(logger: logger) { try await Migrator(files: try MigrationFile.load(from: database.migrations)).verify($0) }
            return try await Reconciliation.runOnce(database: db, logger: logger)
        }
        print("checked \(summary.checked) web root(s); rewrote \(summary.rewritten.count); failed \(summary.failed.count)")
        for line in summary.rewritten { print("rewrote \(line)") }
        for line in summary.failed { print("FAILED \(line)") }
        if !summary.failed.isEmpty { throw ExitCode(1) }
    }
}
