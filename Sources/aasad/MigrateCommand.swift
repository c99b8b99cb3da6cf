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

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply pending migrations (under an advisory lock), or show their status.")

    @OptionGroup var database: DatabaseOptions

    @Flag(
        help: """
            Only report which migrations are applied, pending, or newer than this build (and whether each newer \
            one is compatible); exit 1 if this build cannot run on the database
            """)
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
                    for newer in s.newerCompatible {
                        print("newer: \(newer) (a newer release's; compatible: this build can run on it)")
                    }
                    for problem in s.problems { print("problem: \(problem)") }
                    print(s.isCurrent ? "this build can run on the database" : "this build cannot run on the database")
                    return s.isCurrent
                }
                let applied = try await migrator.migrate(session)
                print(
                    applied.isEmpty
                        ? "the database is current" : "applied: \(applied.map(String.init).joined(separator: ", "))")
                return true
            }
        }
        if !current { throw ExitCode(1) }
    }
}
