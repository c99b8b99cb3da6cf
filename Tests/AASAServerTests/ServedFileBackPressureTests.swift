import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASATestSupport
import Foundation
import Testing

/// Issue 41, finding 2: a client that pipelines requests for the served file and never reads its
/// answers. The router path stays flat under that load; the event-loop path must too (it grew
/// aasad from 69 to 400 MB with 231 KB of requests for a 110 KB file, and kept the memory after the
/// client closed). Measured on a real `aasad` process, by its resident set in /proc.
@Suite struct ServedFileBackPressureTests {
    static let requests = 20_000

    @Test func pipelinedRequestsThatAreNeverReadDoNotGrowTheServer() async throws {
        try await TestDatabase.shared.withDatabase { url in
            let admin = try await TestDatabase.shared.withClient(url: url) {
                try await TestWorld.makeToken($0, teamID: nil, scopes: [.admin], name: "back-pressure test")
            }
            let server = try ServerProcess(database: url)
            try await server.start()
            try await ReplicaTests.setUp(server, admin: admin, webRoots: [])
            // About 70 KB served: 600 rules of a hundred bytes.
            let rules = (0..<600).map { #"{"/":"/section-\#($0)-\#(String(repeating: "x", count: 80))/*"}"# }
            let put = try await Curl.call(
                "PUT", server.baseURL + "/v1/domains/example.com/apps/\(ReplicaTests.app)/rules", token: admin,
                json: #"{"rules":[\#(rules.joined(separator: ","))]}"#)
            try #require(put.status == 200, "\(String(decoding: put.body, as: UTF8.self))")
            try #require(try await ReplicaTests.publish(server, admin: admin, reason: "big file").status == 201)
            let file = try #require(try await ReplicaTests.served(server))
            try #require(file.count > 60_000)
            // Warm: the answer path has run, its buffers exist.
            for _ in 0..<20 { _ = try await ReplicaTests.served(server) }
            let pid = server.process.processIdentifier
            let start = try Self.residentMegabytes(pid)

            let client = try StalledClient(port: server.port, requests: Self.requests)
            let sent = try await client.waitUntilStalled()
            // The server works through what it read for a while after the client stops sending:
            // the most it held over three seconds.
            var during = 0
            for _ in 0..<12 {
                during = max(during, try Self.residentMegabytes(pid))
                try await Task.sleep(for: .milliseconds(250))
            }
            try await client.close()
            // What the server freed when the connection ended has gone back by now.
            try await Task.sleep(for: .seconds(2))
            let after = try Self.residentMegabytes(pid)

            #expect(sent > 0)
            #expect(
                during - start < 64,
                "aasad grew from \(start) to \(during) MB under \(sent) bytes of requests that were never read")
            #expect(after - start < 16, "aasad held \(after) MB after the connection closed (started at \(start) MB)")
            // Still serving.
            #expect(try await ReplicaTests.served(server) == file)
        }
    }

    /// VmRSS of a process, in megabytes.
    static func residentMegabytes(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kilobytes / 1024
    }
}

/// A python3 client on one connection: sends `requests` pipelined GETs of the served file for as
/// long as the server takes them (a send that blocks for two seconds means the server stopped
/// reading), never reads, and holds the connection open until told to close.
final class StalledClient: @unchecked Sendable {
    let process = Process()
    let input = Pipe()
    let output = Pipe()

    init(port: Int, requests: Int) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            """
            import socket, sys
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.connect(("127.0.0.1", \(port)))
            one = b"GET /.well-known/apple-app-site-association HTTP/1.1\\r\\nHost: example.com\\r\\n\\r\\n"
            data = one * \(requests)
            s.settimeout(2)
            sent = 0
            try:
                while sent < len(data):
                    sent += s.send(data[sent:sent + 65536])
            except socket.timeout:
                pass
            print(sent, flush=True)
            sys.stdin.read()
            s.close()
            """,
        ]
        process.standardInput = input
        process.standardOutput = output
        try process.launchSerialized()
    }

    /// The bytes of requests the server took before it stopped reading (or all of them).
    func waitUntilStalled() async throws -> Int {
        let handle = output.fileHandleForReading
        return try await offPool {
            var line = ""
            while !line.hasSuffix("\n") {
                let chunk = handle.readData(ofLength: 1)
                if chunk.isEmpty { break }
                line += String(decoding: chunk, as: UTF8.self)
            }
            return Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
    }

    func close() async throws {
        try input.fileHandleForWriting.close()
        let process = process
        try await offPool { process.waitUntilExit() }
    }
}
