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

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Tokens made on the server host.",
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
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ValidationError("--name must not be empty")
            }
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
