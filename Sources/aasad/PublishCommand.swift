import AASAModel
import AASAServer
import AASAStore
import ArgumentParser
import Foundation
import Hummingbird
import Logging
import PostgresNIO

struct Publish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Reconcile every web root with its domain's current revision (rewrite missing or edited files).")

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Every domain (the only mode: publishing new revisions goes through the API)")
    var all = false

    @Option(
        name: .customLong("web-root-base"),
        help:
            "A directory domain web roots must lie in, as for serve; repeat for several (env AASA_WEB_ROOT_BASES, colon-separated; default: any)"
    )
    var webRootBases: [String] = []

    func validate() throws {
        guard all else { throw ValidationError("pass --all") }
    }

    func run() async throws {
        let summary = try await database.withDatabase { db, logger in
            try await db.read(logger: logger) {
                try await Migrator(files: try MigrationFile.load(from: database.migrations)).verify($0)
            }
            // The same bases as `serve`: reconciliation from the command line writes nowhere the
            // server would not (a root outside them is that target's failure).
            let bases =
                webRootBases.isEmpty
                ? (database.environment["AASA_WEB_ROOT_BASES"] ?? "").split(separator: ":").map(String.init)
                : webRootBases
            return try await Reconciliation.runOnce(database: db, webRootBases: bases, logger: logger)
        }
        print(
            "checked \(summary.checked) web root(s); rewrote \(summary.rewritten.count); failed \(summary.failed.count)"
        )
        for line in summary.rewritten { print("rewrote \(line)") }
        for line in summary.failed { print("FAILED \(line)") }
        if !summary.failed.isEmpty { throw ExitCode(1) }
    }
}
