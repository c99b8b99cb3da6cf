import AASAStore
import Foundation
import Logging
import PostgresNIO

/// Real PostgreSQL for the tests (the server's and the core's): the migrations are applied once to a template database
/// (named by their checksum, so an edited migration gets a new one), and every test gets its own
/// clone (`CREATE DATABASE … TEMPLATE …`), dropped when the test ends. Tests never share rows.
public actor TestDatabase {
    public static let shared = TestDatabase()

    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    public static let migrationsDirectory = repositoryRoot + "/migrations"

    struct NotConfigured: Error, CustomStringConvertible {
        var description: String {
            "AASA_TEST_DATABASE_URL is not set: run the suite with scripts/test, which starts a local PostgreSQL"
        }
    }

    private var admin: PostgresClient?
    /// One creation for every concurrent caller: the actor is re-entrant across awaits.
    private var templateTask: Task<String, any Error>?
    let logger = {
        var l = Logger(label: "aasa-tests")
        l.logLevel = .error
        return l
    }()

    public static func serverURL() throws -> DatabaseURL {
        guard let raw = ProcessInfo.processInfo.environment["AASA_TEST_DATABASE_URL"] else { throw NotConfigured() }
        return try DatabaseURL(raw)
    }

    /// A client to the server's maintenance database, alive for the whole test process.
    private func adminClient() throws -> PostgresClient {
        if let admin { return admin }
        let url = try Self.serverURL().with(database: "postgres")
        let client = PostgresClient(
            configuration: url.clientConfiguration(maximumConnections: 4), backgroundLogger: logger)
        Task.detached { await client.run() }
        admin = client
        return client
    }

    private func template() async throws -> String {
        if let templateTask { return try await templateTask.value }
        let admin = try adminClient()
        let task = Task { try await Self.makeTemplate(admin: admin, logger: logger) }
        templateTask = task
        return try await task.value
    }

    private static func makeTemplate(admin: PostgresClient, logger: Logger) async throws -> String {
        let files = try MigrationFile.load(from: Self.migrationsDirectory)
        let digest = String(
            MigrationFile(version: 0, name: "", sql: files.map(\.checksum).joined()).checksum.prefix(12))
        let name = "aasa_tpl_\(files.count)_\(digest)"
        let exists = try await admin.query("SELECT 1 FROM pg_database WHERE datname = \(name)").collect().count > 0
        if !exists {
            // Build under another name and rename, so a half-built template is never cloned.
            let building = name + "_b\(ProcessInfo.processInfo.processIdentifier)"
            try await admin.query("DROP DATABASE IF EXISTS \(unescaped: building)")
            try await admin.query("CREATE DATABASE \(unescaped: building)")
            _ = try await shared.withClient(database: building) { database in
                try await database.read(logger: logger) { try await Migrator(files: files).migrate($0) }
            }
            // The migration's own session can outlive its client by a moment on the server, and a
            // database with a session cannot be renamed (CI once failed every test on it): end
            // such sessions and try again, unless another test process has made the template.
            for attempt in 1...50 {
                do {
                    try await admin.query("ALTER DATABASE \(unescaped: building) RENAME TO \(unescaped: name)")
                    break
                } catch {
                    if try await admin.query("SELECT 1 FROM pg_database WHERE datname = \(name)").collect().count > 0 {
                        _ = try? await admin.query("DROP DATABASE IF EXISTS \(unescaped: building) WITH (FORCE)")
                        break
                    }
                    if attempt == 50 { throw error }
                    _ = try? await admin.query(
                        """
                        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                        WHERE datname = \(building) AND pid <> pg_backend_pid()
                        """)
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
        }
        return name
    }

    /// A fresh migrated database for one test; dropped afterwards.
    public func clone() async throws -> DatabaseURL {
        let template = try await template()
        let name = "aasa_t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        try await adminClient().query("CREATE DATABASE \(unescaped: name) TEMPLATE \(unescaped: template)")
        return try Self.serverURL().with(database: name)
    }

    /// A new database with nothing in it (for migration tests).
    public func empty() async throws -> DatabaseURL {
        let name = "aasa_e_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        try await adminClient().query("CREATE DATABASE \(unescaped: name)")
        return try Self.serverURL().with(database: name)
    }

    /// Runs `body` on a fresh clone (or an empty database) and drops it when `body` is done, awaited,
    /// whether it returns or throws: a `defer { Task { drop } }` would leave the drop to chance.
    /// The database and everything `body` runs on it is one test world: it waits for a slot first.
    public nonisolated func withDatabase<T: Sendable>(empty: Bool = false, _ body: (DatabaseURL) async throws -> T)
        async throws -> T
    {
        try await TestWorldSlots.shared.hold {
            let url = try await (empty ? self.empty() : clone())
            do {
                let result = try await body(url)
                await drop(url)
                return result
            } catch {
                await drop(url)
                throw error
            }
        }
    }

    public func drop(_ url: DatabaseURL) async {
        _ = try? await adminClient().query("DROP DATABASE IF EXISTS \(unescaped: url.database) WITH (FORCE)")
    }

    /// Runs `body` with a pool on `database`, then shuts the pool down.
    public nonisolated func withClient<T: Sendable>(database: String, _ body: @Sendable (Database) async throws -> T)
        async throws -> T
    {
        try await withClient(url: try Self.serverURL().with(database: database), body)
    }

    public nonisolated func withClient<T: Sendable>(url: DatabaseURL, _ body: @Sendable (Database) async throws -> T)
        async throws -> T
    {
        let client = PostgresClient(
            configuration: url.clientConfiguration(maximumConnections: 4), backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            defer { group.cancelAll() }
            do {
                // A helper's first connection can be slow while many tests clone databases.
                return try await body(Database(client: client, leaseTimeout: .seconds(60), statementDeadline: nil))
            } catch {
                print("database error: \(String(reflecting: error))")
                throw error
            }
        }
    }
}
