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

struct Publish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Reconcile every web root with its domain's current revision (rewrite missing or edited files).")

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Every domain (the only mode: publishing new revisions goes through the API)")
    var all = false

    @OptionGroup var bases: WebRootBaseOptions

    @OptionGroup var objectStores: ObjectStoreOptions

    func validate() throws {
        guard all else { throw ValidationError("pass --all") }
    }

    func run() async throws {
        let summary = try await database.withDatabase { db, logger in
            _ = try await db.read(logger: logger) {
                try await Migrator(files: try MigrationFile.load(from: database.migrations)).verify($0)
            }
            // The same bases as `serve`: reconciliation from the command line writes nowhere the
            // server would not (a root outside them is that target's failure).
            var fetch = FetchConfig()
            fetch.caFile = database.environment["AASA_PROBE_CA_FILE"]
            let objects = try ObjectPublishing.configured(
                credentialsFile: objectStores.resolvedFile, environment: database.environment, fetch: fetch)
            return try await PublishingService(database: db, webRootBases: bases.resolved, objects: objects)
                .reconcileAll(logger: logger)
        }
        print(
            "checked \(summary.checked) target(s); rewrote \(summary.rewritten.count); failed \(summary.failed.count)"
        )
        for line in summary.rewritten { print("rewrote \(line)") }
        for line in summary.failed { print("FAILED \(line)") }
        if !summary.failed.isEmpty { throw ExitCode(1) }
    }
}
