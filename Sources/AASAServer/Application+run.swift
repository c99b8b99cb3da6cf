import Hummingbird
import Logging
import ServiceLifecycle
import UnixSignals

/// Runs the service until SIGTERM or SIGINT, then stops within a stated bound whatever the
/// database does (issue 50: after a connection closed under it, aasad ignored SIGTERM for minutes):
/// new connections are refused at once, requests in flight have `config.shutdownDrain` to finish,
/// then every task is cancelled, and whatever still runs `config.shutdownCancel` later ends the
/// process. A statement has its own deadline (`DBSession.defaultDeadline`), so in practice the
/// drain ends as soon as the last request has its answer.
public func runUntilSignalled(_ app: some ApplicationProtocol, config: AppConfig) async throws {
    var logger = Logger(label: "aasad")
    logger.logLevel = config.logLevel
    var group = ServiceGroupConfiguration(
        services: [.init(service: app)], gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [],
        logger: logger)
    group.maximumGracefulShutdownDuration = config.shutdownDrain
    group.maximumCancellationDuration = config.shutdownCancel
    try await ServiceGroup(configuration: group).run()
}
