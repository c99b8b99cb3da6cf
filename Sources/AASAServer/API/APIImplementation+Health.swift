import AASAAPI
import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import Logging
import Metrics
import OpenAPIRuntime

extension APIImplementation {
    func liveness(_ input: Operations.Liveness.Input) async throws -> Operations.Liveness.Output {
        .ok(.init(body: .json(.init(status: .ok))))
    }

    /// Ready when the database answers within two seconds and this build can run on its migrations
    /// (a newer release's compatible ones included: a rolling upgrade keeps the old replicas in).
    func readiness(_ input: Operations.Readiness.Input) async throws -> Operations.Readiness.Output {
        switch await readinessState() {
        case .ready(let newer):
            let detail =
                newer.isEmpty
                ? nil
                : "running on a newer release's compatible migrations: "
                    + newer.map(\.description).joined(separator: ", ")
            return .ok(.init(body: .json(.init(status: .ok, database: "ok", schema: "current", detail: detail))))
        case .schemaNotCurrent(let reason):
            return .serviceUnavailable(
                .init(
                    body: .json(.init(status: .unavailable, database: "ok", schema: "not current", detail: reason))))
        case .databaseUnavailable:
            return .serviceUnavailable(.init(body: .json(.init(status: .unavailable, database: "unavailable"))))
        }
    }

    /// Each scrape asks what readiness asks, so the alert rules see `aasad_database_up` and
    /// `aasad_schema_current` as fresh as the scrape (Prometheus, not a load balancer, pages).
    func metrics(_ input: Operations.Metrics.Input) async throws -> Operations.Metrics.Output {
        let state = await readinessState()
        Gauge(label: "aasad_database_up").record(state == .databaseUnavailable ? 0 : 1)
        Gauge(label: "aasad_schema_current").record(state.isReady ? 1 : 0)
        return .ok(.init(body: .plainText(HTTPBody(metrics.text()))))
    }

    enum ReadinessState: Equatable {
        case ready(newer: [Migrator.NewerMigration])
        case schemaNotCurrent(String)
        case databaseUnavailable

        var isReady: Bool {
            if case .ready = self { return true }
            return false
        }
    }

    func readinessState() async -> ReadinessState {
        do {
            let (services, logger) = (self.services, self.logger)
            let status = try await answerWithin(.seconds(2)) { try await services.migrationStatus(logger) }
            if let refusal = status.refusal { return .schemaNotCurrent(refusal.description) }
            return .ready(newer: status.newerCompatible)
        } catch {
            logger.warning("readiness check failed", metadata: ["error": .string(String(describing: error))])
            return .databaseUnavailable
        }
    }
}
