import AASAKernel
import AASAOutbound
import AASARules
import AASAServer
import AASAServices
import AASAStore
import AASATestSupport
import Foundation
import Hummingbird
import Logging
import Testing

@Suite struct MigrationTests {
    let logger = Logger(label: "migration-tests")

    /// A copy of the migrations directory that a test may change.
    func copyOfMigrations() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-migrations-\(UUID().uuidString)")
            .path
        try FileManager.default.copyItem(atPath: TestDatabase.migrationsDirectory, toPath: dir)
        return dir
    }

    @Test func migrateTwiceAtOnceAppliesOnce() async throws {
        try await TestDatabase.shared.withDatabase(empty: true) { url in
            let migrator = Migrator(files: try MigrationFile.load(from: TestDatabase.migrationsDirectory))
            let applied = try await TestDatabase.shared.withClient(url: url) { database in
                try await withThrowingTaskGroup(of: [Int].self) { group in
                    for _ in 0..<2 {
                        group.addTask {
                            try await database.read(logger: self.logger) { try await migrator.migrate($0) }
                        }
                    }
                    return try await group.reduce(into: [[Int]]()) { $0.append($1) }
                }
            }
            #expect(applied.sorted { $0.count < $1.count } == [[], migrator.files.map(\.version)])
            let status = try await TestDatabase.shared.withClient(url: url) { db in
                try await db.read(logger: self.logger) { try await migrator.status($0) }
            }
            #expect(status.isCurrent)
        }
    }

    @Test func editedPendingAndUnknownMigrationsAreReported() async throws {
        try await TestDatabase.shared.withDatabase { url in
            let dir = try copyOfMigrations()
            defer { try? FileManager.default.removeItem(atPath: dir) }

            // An applied file edited afterwards.
            let first = dir + "/0001_initial.sql"
            try (try String(contentsOfFile: first, encoding: .utf8) + "\n-- edited\n").write(
                toFile: first, atomically: true, encoding: .utf8)
            let edited = Migrator(files: try MigrationFile.load(from: dir))
            let status = try await TestDatabase.shared.withClient(url: url) { db in
                try await db.read(logger: self.logger) { try await edited.status($0) }
            }
            #expect(status.problems == [.edited(version: 1, name: "initial")])
            await #expect(throws: MigrationError.edited(version: 1, name: "initial")) {
                try await TestDatabase.shared.withClient(url: url) { db in
                    try await db.read(logger: self.logger) { try await edited.migrate($0) }
                }
            }

            // A new file not yet applied: the database is behind until `migrate`.
            try FileManager.default.removeItem(atPath: first)
            try FileManager.default.copyItem(
                atPath: TestDatabase.migrationsDirectory + "/0001_initial.sql", toPath: first)
            try "CREATE TABLE later (id int);".write(toFile: dir + "/0099_later.sql", atomically: true, encoding: .utf8)
            let ahead = Migrator(files: try MigrationFile.load(from: dir))
            await #expect(throws: MigrationError.pending([99])) {
                try await TestDatabase.shared.withClient(url: url) { db in
                    try await db.read(logger: self.logger) { try await ahead.verify($0) }
                }
            }
            let applied = try await TestDatabase.shared.withClient(url: url) { db in
                try await db.read(logger: self.logger) { try await ahead.migrate($0) }
            }
            #expect(applied == [99])

            // Now the original build meets a database that has a migration it does not know: an
            // unmarked one is compatible (named, not refused); one marked breaking is refused.
            let original = Migrator(files: try MigrationFile.load(from: TestDatabase.migrationsDirectory))
            let newer = try await TestDatabase.shared.withClient(url: url) { db in
                try await db.read(logger: self.logger) { try await original.verify($0) }
            }
            #expect(newer == [Migrator.NewerMigration(version: 99, name: "later")])
            try "\(MigrationFile.breakingMarker)\nDROP TABLE later;".write(
                toFile: dir + "/0100_drop_later.sql", atomically: true, encoding: .utf8)
            let contracting = Migrator(files: try MigrationFile.load(from: dir))
            _ = try await TestDatabase.shared.withClient(url: url) { db in
                try await db.read(logger: self.logger) { try await contracting.migrate($0) }
            }
            await #expect(throws: MigrationError.unknownApplied(version: 100, name: "drop_later")) {
                try await TestDatabase.shared.withClient(url: url) { db in
                    try await db.read(logger: self.logger) { try await original.verify($0) }
                }
            }
        }
    }

    /// `aasad serve` itself, as an operator runs it: on a database that is behind it exits non-zero
    /// and says why, before listening.
    @Test func serveRefusesADatabaseThatIsBehind() async throws {
        try await TestDatabase.shared.withDatabase(empty: true) { url in
            let result = try await OneShotAasad.run([], on: url, extra: ["AASA_LISTEN": "127.0.0.1:0"])
            let output = String(decoding: result.err, as: UTF8.self)
            #expect(result.status != 0)
            #expect(output.contains("the database is behind"))
        }
    }

    @Test func splitsStatementsButNotQuotedSemicolons() throws {
        let files = try MigrationFile.load(from: TestDatabase.migrationsDirectory)
        #expect(files.map(\.version) == Array(1...files.count), "numbered without gaps")
        #expect(try #require(files.first).checksum.count == 64)
    }
}
