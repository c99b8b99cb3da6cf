import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Logging

/// Everything the server is told at start-up, read once by `aasad` from flags and environment.
public struct AppConfig: Sendable {
    public var host: String
    public var port: Int
    public var databaseURL: DatabaseURL
    /// The directory of `NNNN_name.sql` files this build expects the database to have applied.
    public var migrationsDirectory: String
    public var logLevel: Logger.Level
    /// Request bodies above this are refused with 413 before any work is done.
    public var maxBodyBytes: Int
    public var databaseConnections: Int
    /// Idempotency records are kept this long (seconds).
    public var idempotencyRetention: Int
    /// When not empty, a domain's web roots must lie inside one of these directories, so an admin
    /// token cannot point publishing at arbitrary places on the host.
    public var webRootBases: [String]
    /// How long a request waits for a pooled connection before it gets 503 (PostgreSQL down or
    /// the pool exhausted). Tests on an overloaded machine raise it; operators keep the default.
    public var databaseLeaseTimeout: Duration = .seconds(5)
    /// On SIGTERM: how long requests in flight may take to finish, then how long cancelled work
    /// may take before the process ends regardless (`runUntilSignalled`; issue 50).
    public var shutdownDrain: Duration = .seconds(20)
    public var shutdownCancel: Duration = .seconds(5)
    /// How long one statement may go unanswered before its request fails with 503 (issue 50).
    public var statementDeadline: Duration = DBSession.defaultDeadline
    /// The clock of the console's sign-in limit (a test holds it still).
    public var signInClock: @Sendable () -> ContinuousClock.Instant = { .now }
    /// The most rules one team may keep on one domain: the rule analysis of a domain grows with
    /// its rules, and one team must not be able to make every write to a shared domain slow.
    public var maxRulesPerTeamPerDomain = 1_000
    /// Benchmarks only (`AASA_BENCHMARK_SKIP_VALIDATION=1`): changes render their domain without
    /// AASAModel's validation, to measure what validation costs. Never set in production.
    public var skipValidationForBenchmark = false
    /// The hot reads answered by `FastReadRoutes` (on by default). Off only to measure them against
    /// the generated server in one run (`AASA_BENCHMARK_GENERATED_READS=1`) and to test that both
    /// write the same bytes.
    public var fastReads = true
    /// The read model (issue 43): tokens' principals and the hot reads' encoded answers kept in
    /// memory, dropped by any change's NOTIFY (`AASA_READ_CACHE=off` turns it off: every request
    /// asks PostgreSQL, as before; the benchmark measures a miss that way).
    public var readCache = true
    /// Served files answered on the event loop by `WellKnownChannelHandler` (false: by the
    /// router's `WellKnownMiddleware` only, to compare the two in one benchmark run with
    /// `AASA_BENCHMARK_ROUTER_WELL_KNOWN=1`).
    public var wellKnownOnEventLoop = true
    /// How the origin probe and the CDN monitor fetch (trust roots, Apple's CDN base URL, …).
    public var fetch = FetchConfig()
    /// How often a caller may make aasad fetch for one domain: a probe or a CDN check runs once
    /// at a time per domain, and at most this many times a minute (`AASA_PROBE_RUNS_PER_MINUTE`).
    public var probeRunsPerMinute = 6
    /// How often the CDN monitor checks every domain against Apple's CDN; nil: it does not run.
    public var cdnInterval: Duration?
    /// The pause between two domains of one monitor pass.
    public var cdnGap: Duration = .seconds(1)
    /// How often the webhook worker looks for due deliveries (`AASA_WEBHOOK_INTERVAL_MS`); nil:
    /// it does not run on this replica.
    public var webhookInterval: Duration? = .seconds(1)
    /// The first retry's delay; each next one doubles it, up to an hour (`AASA_WEBHOOK_RETRY_BASE_MS`).
    public var webhookRetryBase: Duration = .seconds(10)
    /// How long a delivery is retried before it is marked failed.
    public var webhookMaxAge: Duration = .seconds(24 * 3600)
    /// How often the reconciler compares every web root with its revisions (it also runs at start-up).
    public var reconcileInterval: Duration = .seconds(60)
    /// The web console at `/console` (`AASA_CONSOLE=off` turns it off).
    public var console = true
    /// The directory of the aasactl binaries `GET /v1/cli/aasactl` serves (nil: none; 404 naming the flag).
    public var cliDirectory: String?
    /// A console session unused this long ends (`AASA_CONSOLE_IDLE_MINUTES`).
    public var consoleIdle: Duration = .seconds(30 * 60)
    /// A console session ends this long after sign-in, however busy (`AASA_CONSOLE_LIFETIME_HOURS`).
    public var consoleLifetime: Duration = .seconds(12 * 3600)
    /// The OpenID providers people sign in to the console with (`AASA_CONSOLE_OIDC_FILE`; nil: none).
    public var consoleOIDC: ConsoleOIDCConfig?
    /// Sign-in with a pasted API token (`AASA_CONSOLE_TOKEN_SIGN_IN=off` turns it off): break-glass
    /// once people sign in through a provider.
    public var consoleTokenSignIn = true
    /// The proxies whose `X-Forwarded-For` names the client (`AASA_TRUSTED_PROXIES`, addresses or
    /// CIDR ranges): the console's sign-in throttle counts failures per client. From anyone else
    /// the header is ignored, since a client could write any address into it.
    public var trustedProxies = TrustedProxies()
    /// The most webhooks one team may keep (`AASA_MAX_WEBHOOKS_PER_TEAM`): each publish posts to
    /// every one of them.
    public var maxWebhooksPerTeam = 20
    /// Google's Digital Asset Links API: its base URL (`AASA_DAL_BASE_URL`) and API key (`AASA_DAL_API_KEY`).
    public var dalBaseURL = "https://digitalassetlinks.googleapis.com/v1/"
    public var dalAPIKey: String?
    /// How often every domain's Google view is asked again (`AASA_GOOGLE_INTERVAL`; nil: the monitor
    /// is off), how often it looks for domains published since (`AASA_GOOGLE_TICK_S`), the most
    /// requests a second it sends (`AASA_GOOGLE_RATE`), and how long Google may list an older
    /// revision's keys before `google.stale` is told (`AASA_GOOGLE_STALE_AFTER_S`).
    public var googleInterval: Duration?
    public var googleTick: Duration = .seconds(30)
    public var googleRate = 5.0
    public var googleStaleAfter: Duration = .seconds(24 * 3600)
    /// How soon an OIDC issuer's keys may be fetched again for an unknown `kid`
    /// (`AASA_OIDC_KEY_REFETCH_S`): a rotation is seen within it, a flood of made-up `kid`s costs
    /// the issuer one request per interval.
    public var oidcKeyRefetchGap: Duration = .seconds(60)
    /// The JSON file of named credential sets for object-store and purge targets (`--credentials-file`).
    public var credentialsFile: String?
    /// Where the AWS conventions (`AWS_ACCESS_KEY_ID`, `AWS_WEB_IDENTITY_TOKEN_FILE`, …) are read:
    /// the process's environment.
    public var credentialEnvironment: [String: String] = [:]
    /// The most deliveries one replica makes at once (`AASA_WEBHOOK_CONCURRENCY`).
    public var webhookConcurrency = 4

    public init(
        host: String = "127.0.0.1", port: Int = 8080, databaseURL: DatabaseURL,
        migrationsDirectory: String = "migrations", logLevel: Logger.Level = .info,
        maxBodyBytes: Int = 1 << 20, databaseConnections: Int = 20, idempotencyRetention: Int = 86_400,
        webRootBases: [String] = []
    ) {
        self.webRootBases = webRootBases
        self.host = host
        self.port = port
        self.databaseURL = databaseURL
        self.migrationsDirectory = migrationsDirectory
        self.logLevel = logLevel
        self.maxBodyBytes = maxBodyBytes
        self.databaseConnections = databaseConnections
        self.idempotencyRetention = idempotencyRetention
    }
}
