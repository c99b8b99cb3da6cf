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

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the API (refuses a database whose migrations differ from this build's).")

    @OptionGroup var database: DatabaseOptions

    @Option(name: .customLong("listen"), help: "host:port to listen on (env AASA_LISTEN, default 127.0.0.1:8080)")
    var listen: String?

    @Option(help: "Largest request body accepted, in bytes")
    var maxBodyBytes: Int = 1 << 20

    @Option(help: "Maximum PostgreSQL connections in the pool")
    var databaseConnections: Int = 20

    @OptionGroup var bases: WebRootBaseOptions

    @Option(help: "The most rules one team may keep on one domain (env AASA_MAX_RULES_PER_TEAM, default 1000)")
    var maxRulesPerTeam: Int?

    @Option(
        help: "Seconds between two passes of the Apple CDN monitor; 0 turns it off (env AASA_CDN_INTERVAL, default off)"
    )
    var cdnInterval: Int?

    @Option(
        help:
            """
            Apple's CDN, where <base><host> answers for a host (env AASA_CDN_BASE_URL, default \
            https://app-site-association.cdn-apple.com/a/v1/)
            """
    )
    var cdnBaseURL: String?

    @Option(
        help:
            """
            Extra trust roots (PEM) for the probe and the CDN monitor, besides the system store (env \
            AASA_PROBE_CA_FILE)
            """
    )
    var probeCAFile: String?

    @Option(
        help:
            """
            The console's OpenID providers, a JSON file (env AASA_CONSOLE_OIDC_FILE; README, "Console sign-in \
            with your identity provider")
            """
    )
    var consoleOIDCFile: String?

    @Flag(
        help:
            """
            Let the probe and the CDN monitor fetch hosts that resolve to loopback, private or link-local \
            addresses (env AASA_PROBE_ALLOW_PRIVATE=1); without it they answer P004
            """
    )
    var probeAllowPrivate = false

    @Option(
        help:
            """
            The directory of the aasactl binaries served at GET /v1/cli/aasactl (aasactl-linux-x86_64, \
            aasactl-linux-arm64; env AASA_CLI_DIR)
            """
    )
    var cliDir: String?

    @OptionGroup var objectStores: ObjectStoreOptions

    func run() async throws {
        let address = listen ?? database.environment["AASA_LISTEN"] ?? "127.0.0.1:8080"
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]) else {
            throw ValidationError("--listen must be host:port")
        }
        var config = AppConfig(
            host: String(address[..<colon]), port: port, databaseURL: try database.url(),
            migrationsDirectory: database.migrations, logLevel: try database.level(),
            maxBodyBytes: maxBodyBytes, databaseConnections: databaseConnections,
            webRootBases: bases.resolved)
        config.skipValidationForBenchmark = database.environment["AASA_BENCHMARK_SKIP_VALIDATION"] == "1"
        config.fastReads = database.environment["AASA_BENCHMARK_GENERATED_READS"] != "1"
        config.readCache = database.environment["AASA_READ_CACHE"] != "off"
        config.wellKnownOnEventLoop = database.environment["AASA_BENCHMARK_ROUTER_WELL_KNOWN"] != "1"
        if let cap = maxRulesPerTeam ?? database.environment["AASA_MAX_RULES_PER_TEAM"].flatMap({ Int($0) }) {
            config.maxRulesPerTeamPerDomain = cap
        }
        let env = database.environment
        if let seconds = cdnInterval ?? env["AASA_CDN_INTERVAL"].flatMap({ Int($0) }), seconds > 0 {
            config.cdnInterval = .seconds(seconds)
        }
        if let gap = env["AASA_CDN_GAP_MS"].flatMap({ Int($0) }) { config.cdnGap = .milliseconds(gap) }
        if let base = cdnBaseURL ?? env["AASA_CDN_BASE_URL"] {
            config.fetch.cdnBaseURL = base.hasSuffix("/") ? base : base + "/"
        }
        config.fetch.caFile = probeCAFile ?? env["AASA_PROBE_CA_FILE"]
        if let base = env["AASA_DAL_BASE_URL"] { config.dalBaseURL = base }
        config.dalAPIKey = env["AASA_DAL_API_KEY"]
        if let seconds = env["AASA_GOOGLE_INTERVAL"].flatMap({ Int($0) }), seconds > 0 {
            config.googleInterval = .seconds(seconds)
        }
        if let seconds = env["AASA_GOOGLE_TICK_S"].flatMap({ Int($0) }), seconds > 0 {
            config.googleTick = .seconds(seconds)
        }
        if let seconds = env["AASA_OIDC_KEY_REFETCH_S"].flatMap({ Int($0) }), seconds >= 0 {
            config.oidcKeyRefetchGap = .seconds(seconds)
        }
        if let rate = env["AASA_GOOGLE_RATE"].flatMap({ Double($0) }), rate > 0 { config.googleRate = rate }
        if let seconds = env["AASA_GOOGLE_STALE_AFTER_S"].flatMap({ Int($0) }), seconds >= 0 {
            config.googleStaleAfter = .seconds(seconds)
        }
        config.credentialsFile = objectStores.resolvedFile
        config.credentialEnvironment = env
        config.fetch.allowPrivate = probeAllowPrivate || env["AASA_PROBE_ALLOW_PRIVATE"] == "1"
        // Tests and diagnostics only: where to connect for a host ("host=address,…") and on which port.
        for pair in (env["AASA_PROBE_RESOLVE"] ?? "").split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { config.fetch.resolve[String(parts[0])] = String(parts[1]) }
        }
        if let runs = env["AASA_PROBE_RUNS_PER_MINUTE"].flatMap({ Int($0) }), runs > 0 {
            config.probeRunsPerMinute = runs
        }
        if let port = env["AASA_PROBE_PORT"].flatMap({ Int($0) }) { config.fetch.port = port }
        if let seconds = env["AASA_CDN_STALE_AFTER_S"].flatMap({ Int($0) }), seconds >= 0 {
            config.fetch.cdnStaleAfter = .seconds(seconds)
        }
        if let ms = env["AASA_WEBHOOK_INTERVAL_MS"].flatMap({ Int($0) }) {
            config.webhookInterval = ms > 0 ? .milliseconds(ms) : nil
        }
        if let ms = env["AASA_WEBHOOK_RETRY_BASE_MS"].flatMap({ Int($0) }), ms > 0 {
            config.webhookRetryBase = .milliseconds(ms)
        }
        if env["AASA_CONSOLE"] == "off" { config.console = false }
        config.cliDirectory = cliDir ?? env["AASA_CLI_DIR"]
        if let minutes = env["AASA_CONSOLE_IDLE_MINUTES"].flatMap({ Int($0) }), minutes > 0 {
            config.consoleIdle = .seconds(minutes * 60)
        }
        if let hours = env["AASA_CONSOLE_LIFETIME_HOURS"].flatMap({ Int($0) }), hours > 0 {
            config.consoleLifetime = .seconds(hours * 3600)
        }
        if let file = consoleOIDCFile ?? env["AASA_CONSOLE_OIDC_FILE"] {
            do { config.consoleOIDC = try ConsoleOIDCConfig.load(path: file, environment: env) } catch {
                throw ValidationError("AASA_CONSOLE_OIDC_FILE: \(error)")
            }
        }
        if env["AASA_CONSOLE_TOKEN_SIGN_IN"] == "off" { config.consoleTokenSignIn = false }
        if let proxies = env["AASA_TRUSTED_PROXIES"] {
            do { config.trustedProxies = try TrustedProxies(proxies) } catch {
                throw ValidationError("AASA_TRUSTED_PROXIES: \(error)")
            }
        }
        if let cap = env["AASA_MAX_WEBHOOKS_PER_TEAM"].flatMap({ Int($0) }), cap > 0 { config.maxWebhooksPerTeam = cap }
        if let n = env["AASA_WEBHOOK_CONCURRENCY"].flatMap({ Int($0) }), n > 0 { config.webhookConcurrency = n }
        ServerLogging.bootstrap()
        defer { ServerLogging.flush() }
        if let seconds = env["AASA_STATEMENT_DEADLINE_S"].flatMap({ Int($0) }), seconds > 0 {
            config.statementDeadline = .seconds(seconds)
        }
        if let seconds = env["AASA_SHUTDOWN_DRAIN_S"].flatMap({ Int($0) }), seconds >= 0 {
            config.shutdownDrain = .seconds(seconds)
        }
        let app = try buildApplication(config: config)
        try await runUntilSignalled(app, config: config)
    }
}
