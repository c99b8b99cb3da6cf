import AASAModel
import AASAStore
import AASATestSupport
import Foundation
import Testing

/// Switchovers in a row behind PgBouncer in session mode, the way the outside probe crashed
/// replicas: each time PgBouncer is pointed at a primary that is gone (its clients ended, its
/// logins failing) until aasad's followers have tried to listen on it, then at the live one again.
/// No fault of the database may end the process; aasad serves again after each switch.
@Suite struct SwitchoverBehindPgBouncerTests {
    @Test func switchoversInARowNeverEndAasad() async throws {
        try await TestDatabase.shared.withDatabase { url in
            let admin = try await WebhookProcessTests.admin(url)
            let pooler = try await PgBouncer(upstream: url)
            let server = try ServerProcess(database: pooler.url(for: url))
            try await server.start()
            let gone = try FreePort.pick()
            func lines(_ needle: String) -> Int {
                server.output.split(separator: "\n").filter { $0.contains(needle) }.count
            }
            for round in 1...8 {
                let (interrupted, failed) = (lines("notifications interrupted"), lines("Connection creation failed"))
                try await pooler.switch(toPort: gone, closing: url.database)
                // The followers met their closed connections, and the pool tried the gone primary.
                #expect(
                    try await eventually(timeout: .seconds(60)) {
                        lines("notifications interrupted") > interrupted && lines("Connection creation failed") > failed
                    }, "round \(round): the followers never noticed: \(server.output.suffix(2000))")
                #expect(server.process.isRunning, "round \(round): aasad ended: \(server.output.suffix(4000))")
                try await pooler.switch(toPort: url.port, closing: url.database)
                // Serving again: a write and a read of it through the new primary.
                let team = "t\(round)"
                let served = try await eventually(timeout: .seconds(60), every: .milliseconds(200)) {
                    let created = try await Curl.call(
                        "POST", server.baseURL + "/v1/teams", token: admin, json: #"{"name":"\#(team)"}"#)
                    guard created.status == 201 || created.status == 409 else { return false }
                    return try await Curl.call("GET", server.baseURL + "/v1/teams/\(team)", token: admin).status
                        == 200
                }
                #expect(served, "round \(round): aasad never served again: \(server.output.suffix(2000))")
                #expect(server.process.isRunning, "round \(round): aasad ended: \(server.output.suffix(4000))")
            }
            #expect(!server.output.contains("Fatal error"), "\(server.output.suffix(4000))")
        }
    }
}
