import AASAAPI
import AASAStore
import Foundation
import Logging
import OpenAPIRuntime

extension APIImplementation {
    func liveness(_ input: Operations.Liveness.Input) async throws -> Operations.Liveness.Output {
        .ok(.init(body: .json(.init(status: .ok))))
    }

    /// Ready when the database answers within two seconds and has exactly this build's migrations.
    func readiness(_ input: Operations.Readiness.Input) async throws -> Operations.Readiness.Output {
        do {
            let status = try await withThrowingTaskGroup(of: Migrator.Status.self) { group in
                group.addTask { try await services.migrationStatus(logger) }
                group.addTask {
                    try await Task.sleep(for: .seconds(2))
                    throw ServiceError.unavailable("timeout")
                }
                let first = try await group.next()!
                group.cancelAll()
                return first
            }
            guard status.isCurrent else {
                return .serviceUnavailable(
                    .init(body: .json(.init(status: .unavailable, database: "ok", schema: "not current"))))
            }
            return .ok(.init(body: .json(.init(status: .ok, database: "ok", schema: "current"))))
        } catch {
            logger.warning("readiness check failed", metadata: ["error": .string(String(describing: error))])
            return .serviceUnavailable(.init(body: .json(.init(status: .unavailable, database: "unavailable"))))
        }
    }

    func metrics(_ input: Operations.Metrics.Input) async throws -> Operations.Metrics.Output {
        .ok(.init(body: .plainText(HTTPBody(metrics.text()))))
    }
}
