import AASAStore
import AASATestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// Readiness and /metrics answer within their own 2 s while a statement they run is stuck (here on
/// a lock, with the statement deadline at 60 s): before, leaving their task group waited for the
/// stuck statement's deadline, so a probe (and curl's 10 s here) gave up on them.
@Suite struct HealthDeadlineTests {
    @Test func readinessAndMetricsAnswerWhileTheirQueryIsStuck() async throws {
        try await TestDatabase.shared.withDatabase { url in
            let server = try ServerProcess(database: url, environment: ["AASA_STATEMENT_DEADLINE_S": "60"])
            try await server.start()
            #expect(try await Curl.get(server.baseURL + "/health/ready").status == 200)

            let blocker = try await ListenerOnClosedConnectionTests.connect(url, id: 1)
            let logger = Logger(label: "health deadline test")
            _ = try await blocker.query("BEGIN", logger: logger)
            _ = try await blocker.query("LOCK TABLE schema_migrations IN ACCESS EXCLUSIVE MODE", logger: logger)

            let ready = try await Curl.get(server.baseURL + "/health/ready")
            #expect(ready.status == 503, "curl \(ready.exit): \(String(decoding: ready.body, as: UTF8.self))")
            #expect(String(decoding: ready.body, as: UTF8.self).contains("\"unavailable\""))
            let metrics = try await Curl.get(server.baseURL + "/metrics")
            #expect(metrics.status == 200, "curl \(metrics.exit)")
            #expect(String(decoding: metrics.body, as: UTF8.self).contains("aasad_database_up 0"))

            _ = try await blocker.query("ROLLBACK", logger: logger)
            try await blocker.close()
            #expect(
                try await eventually(timeout: .seconds(30)) {
                    try await Curl.get(server.baseURL + "/health/ready").status == 200
                })
        }
    }
}
