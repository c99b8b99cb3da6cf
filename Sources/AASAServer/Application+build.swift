import AASAAPI
import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Hummingbird
import HummingbirdCore
import Logging
import OpenAPIHummingbird
import OpenAPIRuntime
import PostgresNIO
import ServiceLifecycle

/// Builds the whole service from its configuration: the PostgreSQL pool (run as a service), the
/// middleware chain, the generated API routes, and the start-up check that refuses a database
/// whose migrations differ from this build's. `aasad serve` and the tests both call this.
public func buildApplication(config: AppConfig) throws -> some ApplicationProtocol {
    // The metrics backend first: a counter made before it (the read model's, in its init) would
    // count into nothing for the life of the process.
    let metrics = MetricsExport.shared
    let logger = {
        var logger = Logger(label: "aasad")
        logger.logLevel = config.logLevel
        return logger
    }()
    let files = try MigrationFile.load(from: config.migrationsDirectory)
    let client = PostgresClient(
        configuration: config.databaseURL.clientConfiguration(maximumConnections: config.databaseConnections),
        backgroundLogger: logger)
    let database = Database(
        client: client, leaseTimeout: config.databaseLeaseTimeout, start: ClientStart(),
        statementDeadline: config.statementDeadline)
    let migrator = Migrator(files: files)

    let served = WellKnownFiles()
    // Built once and handed to everything that publishes: the API, the change pipeline (whose
    // policies are the publisher's), suspensions and the reconciler.
    let objects = try ObjectPublishing.configured(
        credentialsFile: config.credentialsFile, environment: config.credentialEnvironment, fetch: config.fetch)
    let publisher = Publisher(
        database: database, served: served, webRootBases: config.webRootBases, objects: objects,
        poolSize: config.databaseConnections)

    // The read model (issue 43): what it holds is good only while this generation stands.
    let generation = config.readCache ? ReadGeneration() : ReadGeneration.off
    let principals = PrincipalCache(generation: generation)
    let answers = AnswerCache(generation: generation)

    let router = Router(context: AppRequestContext.self)
    // The served file is answered first, by Host, before request IDs, metrics or routing; a
    // request with two Host headers never reaches it.
    router.add(middleware: SingleHostMiddleware())
    router.add(middleware: WellKnownMiddleware(files: served))
    // Request ID, problem+json, the read generation after a write, HTTP metrics: one turn.
    router.add(middleware: RequestMiddleware(generation: generation))
    let routes = RouteTable()
    router.add(middleware: MethodNotAllowedMiddleware(routes: routes))
    router.add(middleware: ETagHeaderMiddleware())
    router.add(middleware: RequestInputMiddleware(maxBodyBytes: config.maxBodyBytes))
    router.add(middleware: AuthMiddleware(authenticator: Authenticator(database: database, cache: principals)))
    // After authentication: a body is parsed only for a caller who may send it (issue 49).
    router.add(middleware: RequestBodyMiddleware(early: EarlyRefusal(database: database)))
    // After the body middleware: its fingerprint reads the body that middleware collected.
    router.add(middleware: IdempotencyMiddleware(database: database))
    let pipeline = DomainChangePipeline(
        database: database, publisher: publisher, served: served,
        skipValidation: config.skipValidationForBenchmark)
    let fetcher = try OutboundClient(config: config.fetch)
    var api = APIImplementation(
        services: ServiceSet(database: database, migrator: migrator), metrics: metrics, served: served,
        publisher: publisher,
        pipeline: pipeline,
        webRootBases: config.webRootBases, maxRulesPerTeamPerDomain: config.maxRulesPerTeamPerDomain,
        fetcher: fetcher, fetchLimiter: FetchLimiter(perMinute: config.probeRunsPerMinute))
    api.credentialSets = objects.credentials.names
    let dal = DigitalAssetLinksAPI(
        fetcher: fetcher, baseURL: config.dalBaseURL, apiKey: config.dalAPIKey, requestsPerSecond: config.googleRate)
    api.google = (dal, config.googleStaleAfter)
    let idTokens = IDTokenVerifier(keys: OIDCKeyCache(fetcher: fetcher, minRefetchGap: config.oidcKeyRefetchGap))
    api.oidc = idTokens
    api.consoleProviders = config.consoleOIDC?.providers.map(\.name) ?? []
    api.maxWebhooksPerTeam = config.maxWebhooksPerTeam
    // People read and grep these answers: URLs and paths print as written (`"/shop"`, not `"\/shop"`).
    // Every date-time a request sets is bounded to years 0001-9999 here (issue 49).
    let openAPI = Configuration(
        dateTranscoder: BoundedDateTranscoder(),
        jsonEncodingOptions: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
    try api.registerHandlers(
        on: RouteRecordingTransport(
            inner: router, table: routes, ownGETs: config.fastReads ? FastReadRoutes.paths : []),
        configuration: openAPI)
    if config.fastReads { FastReadRoutes(api: api, configuration: openAPI, answers: answers).register(on: router) }
    RevisionFileRoute(database: database).register(on: router)
    try CLIDownloads(directory: config.cliDirectory).register(on: router)
    routes.add(.get, CLIDownloads.indexPath)
    routes.add(.get, CLIDownloads.binaryPath)
    routes.add(.get, RevisionFileRoute.path)
    routes.add(.get, RevisionFileRoute.assetLinksPath)
    routes.add(.get, RevisionFileRoute.webauthnPath)
    if config.console {
        _ = try ConsoleTemplates.loaded.get()
        let limiter = SignInLimiter(now: config.signInClock)
        let sessions = ConsoleSessionService(
            database: database, authenticator: Authenticator(database: database), limiter: limiter,
            idle: config.consoleIdle, lifetime: config.consoleLifetime)
        // Provider sign-ins share the pipeline exchange's key cache: one place for keys and refetches.
        let oidc = config.consoleOIDC.map {
            ConsoleOIDCSignIn(config: $0, verifier: idTokens, fetcher: fetcher, database: database, limiter: limiter)
        }
        ConsoleRoutes(
            api: api, sessions: sessions, trustedProxies: config.trustedProxies, oidc: oidc,
            tokenSignIn: config.consoleTokenSignIn
        ).register(on: router, routes: routes)
    }
    for path in WellKnownMiddleware.paths {
        routes.add(.get, path)
        routes.add(.head, path)
    }

    MetricsCatalog.preregister()
    var services: [any Service] = [
        DatabaseService(database),
        IdempotencyJanitor(
            database: database, retention: config.idempotencyRetention, consoleIdle: config.consoleIdle,
            consoleLifetime: config.consoleLifetime, logger: logger),
        RevisionFollower(database: database, served: served, logger: logger),
        Reconciler(database: database, publisher: publisher, logger: logger, interval: config.reconcileInterval),
    ]
    if config.readCache {
        services.append(ReadModelFollower(database: database, generation: generation, logger: logger))
    }
    if let interval = config.webhookInterval {
        services.append(
            WebhookWorker(
                database: database, fetcher: fetcher, interval: interval, retryBase: config.webhookRetryBase,
                maxAge: config.webhookMaxAge, concurrency: config.webhookConcurrency, logger: logger))
    }
    if let interval = config.cdnInterval {
        services.append(
            CDNMonitor(database: database, fetcher: fetcher, interval: interval, gap: config.cdnGap, logger: logger))
    }
    if let interval = config.googleInterval {
        services.append(
            GoogleMonitor(
                database: database, api: dal, interval: interval, tick: min(config.googleTick, interval),
                staleAfter: config.googleStaleAfter, logger: logger))
    }
    // Each stops within the bound, whatever it waits on, and one that does not is named.
    let bounded = services.map {
        BoundedStop($0, name: String(describing: type(of: $0)), bound: config.shutdownCancel, logger: logger)
    }
    let serverName = "aasad"
    let http1: HTTP1Channel.Configuration =
        config.wellKnownOnEventLoop
        ? .init(
            // Evaluated for each connection: each gets a handler of its own.
            additionalChannelHandlers: [
                WellKnownChannelHandler(files: served, serverName: serverName)
            ])
        : .init()
    var app = Application(
        router: router,
        server: .http1(configuration: http1),
        configuration: .init(address: .hostname(config.host, port: config.port), serverName: serverName),
        services: bounded,
        logger: logger)
    app.beforeServerStarts {
        // Refuse to serve a database that is behind, whose applied files were edited, or that has a
        // newer release's migration marked breaks-older-releases; a newer compatible one is named.
        let newer = try await database.read(logger: logger) { try await migrator.verify($0) }
        logger.info(
            "database schema is current",
            metadata: [
                "database": .string(config.databaseURL.description),
                "migrations": .stringConvertible(files.count),
                "newer_compatible": .string(newer.map(\.description).joined(separator: ",")),
            ])
        // Every served file in memory before the port opens: a replica that is ready (or merely
        // live) never answers 404 for a published domain while its first load runs.
        let loadStarted = ContinuousClock.now
        try await served.reloadAll(database, logger: logger)
        logger.info(
            "served files loaded",
            metadata: [
                "names": .stringConvertible(served.aasa.count),
                "ms": .stringConvertible((ContinuousClock.now - loadStarted).milliseconds),
            ])
    }
    return app
}

/// Forgets idempotency records past their retention, and console sessions past their idle
/// expiry, hourly.
struct IdempotencyJanitor: Service {
    let database: Database
    let retention: Int
    let consoleIdle: Duration
    let consoleLifetime: Duration
    let logger: Logger

    func run() async throws {
        // First after a minute: at start-up the schema check runs, and the tables may not exist yet.
        try await PeriodicService(
            "expiring idempotency keys and console sessions", every: .seconds(3600), firstAfter: .seconds(60),
            logger: logger
        ) {
            try await database.read(logger: logger) {
                try await $0.expireIdempotencyKeys(olderThan: retention)
                try await $0.expireConsoleSessions(idle: consoleIdle, lifetime: consoleLifetime)
                try await $0.expireConsoleLogins(maxAge: ConsoleOIDCSignIn.loginMaxAge)
            }
        }.run()
    }
}
