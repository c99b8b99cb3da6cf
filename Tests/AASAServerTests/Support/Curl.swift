import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASATestSupport
import Foundation

/// HTTP as outside clients send it (any Host header), through the system's curl.
enum Curl {
    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        /// curl's exit status: 0 done, 7 could not connect, 18 body cut short, 52 no reply, 56 reset.
        var exit: Int32 = 0
    }

    /// A JSON API call with a bearer token.
    static func call(_ method: String, _ url: String, token: String, json: String? = nil) async throws -> Reply {
        var headers = ["Authorization": "Bearer \(token)"]
        if json != nil { headers["Content-Type"] = "application/json" }
        return try await get(url, headers: headers, method: method, body: json)
    }

    /// Waits for curl off the concurrency pool (`offPool`).
    static func get(
        _ url: String, host: String? = nil, headers: [String: String] = [:],
        method: String = "GET", body: String? = nil
    ) async throws -> Reply {
        try await offPool { try blockingGet(url, host: host, headers: headers, method: method, body: body) }
    }

    private static func blockingGet(
        _ url: String, host: String?, headers: [String: String],
        method: String, body: String?
    ) throws -> Reply {
        let headerFile = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: headerFile) }
        var arguments = ["-s", "-D", headerFile, "--max-time", "10"]
        if let host { arguments += ["-H", "Host: \(host)"] }
        for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
        if method != "GET" { arguments += ["-X", method] }
        if let body { arguments += ["--data-binary", body] }
        arguments.append(url)
        let result = try Spawn.run("/usr/bin/curl", arguments, environment: ProcessInfo.processInfo.environment)
        let body = result.out
        let head = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let status = lines.isEmpty ? 0 : Int(lines.removeFirst().split(separator: " ")[1]) ?? 0
        var fields: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Reply(status: status, headers: fields, body: [UInt8](body), exit: result.status)
    }
}
