import AASAModel
import AASAServer
import AASAStore
import ArgumentParser
import Foundation
import Hummingbird
import Logging
import PostgresNIO

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
