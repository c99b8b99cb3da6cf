import AASAStore
import AASATestSupport
import Foundation

/// aasad on a test database, as an operator starts it: the process's environment with the
/// database's URL (no password: the test cluster trusts loopback) and the migrations the build (or
/// a next release's directory) expects. `ServerProcess` serves with it; `run` runs one command to
/// its end (`migrate`, `migrate --status`, `publish --all`, a `serve` that is refused).
enum OneShotAasad {
    static func environment(
        _ url: DatabaseURL, migrations: String = TestDatabase.migrationsDirectory
    ) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = "postgres://\(url.username)@\(url.host):\(url.port)/\(url.database)"
        environment["AASA_MIGRATIONS_DIR"] = migrations
        return environment
    }

    /// `aasad ARGUMENTS…` to its end, off the concurrency pool; `extra` set last.
    static func run(
        _ arguments: [String], on url: DatabaseURL, migrations: String = TestDatabase.migrationsDirectory,
        extra: [String: String] = [:]
    ) async throws -> Spawn.Result {
        let settings = environment(url, migrations: migrations).merging(extra) { $1 }
        return try await offPool { try Spawn.run(try ProcessTests.binary(), arguments, environment: settings) }
    }
}
