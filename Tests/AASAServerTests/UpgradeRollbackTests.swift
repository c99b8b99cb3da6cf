import AASAStore
import AASATestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// A release and the next one's migrations: an expand step leaves this release ready and startable
/// (the way back after an upgrade), a contract step marked `breaks-older-releases` stops it with
/// the migration named; and aasad finds its database through libpq's variables.
@Suite struct UpgradeRollbackTests {
    static func readiness(_ server: ServerProcess) async throws -> (status: Int, body: String) {
        let reply = try await Curl.get(server.baseURL + "/health/ready")
        return (reply.status, String(decoding: reply.body, as: UTF8.self))
    }

    static func migrateStatus(_ url: DatabaseURL) async throws -> (status: Int32, output: String) {
        let result = try await OneShotAasad.run(["migrate", "--status"], on: url)
        return (result.status, String(decoding: result.out + result.err, as: UTF8.self))
    }

    @Test func aReleaseKeepsRunningAndStartsOnTheNextReleasesExpandStep() async throws {
        try await TestDatabase.shared.withDatabase { url in
            let running = try ServerProcess(database: url)
            try await running.start()
            #expect(try await Self.readiness(running).status == 200)

            let next = try NextRelease(["0099_next_release.sql": NextRelease.expand])
            defer { next.remove() }
            _ = try await next.migrate(url)

            // The running release stays in its Service: ready on every check, naming the newer file.
            for _ in 0..<5 {
                let ready = try await Self.readiness(running)
                #expect(ready.status == 200, "\(ready.body)")
                #expect(ready.body.contains("0099_next_release"), "\(ready.body)")
            }
            // Told once, by name, however often readiness asks.
            let told = running.output.split(separator: "\n").filter {
                $0.contains("newer release's migration") && $0.contains("0099_next_release")
            }
            #expect(told.count == 1, "\(running.output)")

            // The way back: this release starts on the upgraded database and is ready.
            let rolledBack = try ServerProcess(database: url)
            try await rolledBack.start()
            #expect(try await Self.readiness(rolledBack).status == 200)
            #expect(rolledBack.output.contains("0099_next_release"))

            let status = try await Self.migrateStatus(url)
            #expect(status.status == 0, "\(status.output)")
            #expect(status.output.contains("newer: 0099_next_release"), "\(status.output)")
            #expect(status.output.contains("this build can run on the database"), "\(status.output)")
        }
    }

    @Test func aContractStepStopsTheOlderReleaseNamingIt() async throws {
        try await TestDatabase.shared.withDatabase { url in
            let running = try ServerProcess(database: url)
            try await running.start()
            let next = try NextRelease([
                "0099_next_release.sql": NextRelease.expand, "0100_drop_note.sql": NextRelease.contract,
            ])
            defer { next.remove() }
            _ = try await next.migrate(url)

            // The running release leaves its Service, saying why.
            let ready = try await Self.readiness(running)
            #expect(ready.status == 503)
            #expect(
                ready.body.contains("0100_drop_note") && ready.body.contains("breaks-older-releases"), "\(ready.body)")

            // A start of the older release is refused before it listens, naming the migration.
            let refused = try await OneShotAasad.run([], on: url, extra: ["AASA_LISTEN": "127.0.0.1:0"])
            let said = String(decoding: refused.err + refused.out, as: UTF8.self)
            #expect(refused.status != 0)
            #expect(said.contains("0100_drop_note") && said.contains("breaks-older-releases"), "\(said)")

            let status = try await Self.migrateStatus(url)
            #expect(status.status == 1)
            #expect(status.output.contains("problem:") && status.output.contains("0100_drop_note"), "\(status.output)")
            #expect(status.output.contains("newer: 0099_next_release"), "\(status.output)")

            // The release that brought the contract step runs on it.
            let newer = try ServerProcess(database: url, environment: ["AASA_MIGRATIONS_DIR": next.directory])
            try await newer.start()
            #expect(try await Self.readiness(newer).status == 200)
        }
    }

    /// The marker is read from the file's first line only, and recorded as each file is applied.
    @Test func theBreakingMarkerIsTheFirstLineAndIsRecorded() async throws {
        #expect(MigrationFile(version: 1, name: "a", sql: NextRelease.contract).breaksOlderReleases)
        #expect(!MigrationFile(version: 1, name: "a", sql: NextRelease.expand).breaksOlderReleases)
        #expect(!MigrationFile(version: 1, name: "a", sql: "SELECT 1;\n" + NextRelease.contract).breaksOlderReleases)
        try await TestDatabase.shared.withDatabase { url in
            let next = try NextRelease([
                "0099_next_release.sql": NextRelease.expand, "0100_drop_note.sql": NextRelease.contract,
            ])
            defer { next.remove() }
            _ = try await next.migrate(url)
            let breaking = try await TestDatabase.shared.withClient(url: url) { db in
                try await db.read(logger: Logger(label: "t")) {
                    try await $0.all(
                        "SELECT version FROM schema_migrations WHERE breaks_older ORDER BY 1", as: Int.self)
                }
            }
            #expect(breaking == [100])
        }
    }

    /// CloudNativePG's `<cluster>-app` Secret gives a user and a password, not a URL: aasad takes
    /// libpq's variables when DATABASE_URL is absent.
    @Test func serveFindsItsDatabaseThroughLibpqVariables() async throws {
        try await TestDatabase.shared.withDatabase { url in
            let server = try ServerProcess(
                database: url,
                environment: [
                    "DATABASE_URL": "", "PGHOST": url.host, "PGPORT": String(url.port), "PGUSER": url.username,
                    "PGDATABASE": url.database, "PGSSLMODE": "disable",
                ])
            try await server.start()
            #expect(try await Self.readiness(server).status == 200)
            #expect(server.output.contains("/\(url.database)"))
        }
    }

    @Test func libpqVariablesFillInWhatTheURLLeavesOut() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pgpass-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let passfile = directory.appendingPathComponent("pgpass").path
        try """
        # comment
        other:5432:aasa:aasa:wrong
        db.internal:5432:*:aasa:pa\\:ss\\\\word
        """.write(toFile: passfile, atomically: true, encoding: .utf8)

        let fromVariables = try DatabaseURL.resolve(
            nil,
            environment: [
                "PGHOST": "db.internal", "PGUSER": "aasa", "PGPASSFILE": passfile, "PGSSLMODE": "verify-full",
                "PGSSLROOTCERT": "/etc/ca.crt",
            ])
        #expect(fromVariables.host == "db.internal" && fromVariables.port == 5432)
        #expect(fromVariables.database == "aasa", "PGDATABASE defaults to the user")
        #expect(fromVariables.password == "pa:ss\\word")
        #expect(fromVariables.sslMode == "verify-full" && fromVariables.sslRootCertificate == "/etc/ca.crt")

        // The URL wins for what it says; PGPASSWORD gives the password it leaves out.
        let completed = try DatabaseURL.resolve(
            "postgres://aasa@pooler:6432/prod?sslmode=require",
            environment: ["PGPASSWORD": "secret", "PGHOST": "ignored", "PGSSLMODE": "disable"])
        #expect(completed.host == "pooler" && completed.port == 6432 && completed.database == "prod")
        #expect(completed.password == "secret" && completed.sslMode == "require")
        #expect(!completed.description.contains("secret"), "never logged")
        let withOwn = try DatabaseURL.resolve("postgres://aasa:own@h/d", environment: ["PGPASSWORD": "other"])
        #expect(withOwn.password == "own")

        #expect(throws: DatabaseURL.Invalid.self) { try DatabaseURL.resolve(nil, environment: [:]) }
        #expect(throws: DatabaseURL.Invalid.self) { try DatabaseURL.resolve(nil, environment: ["PGHOST": "h"]) }
        #expect(throws: DatabaseURL.Invalid.self) {
            try DatabaseURL.resolve(nil, environment: ["PGHOST": "h", "PGUSER": "u", "PGSSLMODE": "allow-any"])
        }
        #expect(throws: DatabaseURL.Invalid.self) {
            try DatabaseURL.resolve(nil, environment: ["PGHOST": "h", "PGUSER": "u", "PGPORT": "99999"])
        }
    }
}
