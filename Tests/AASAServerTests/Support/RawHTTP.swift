import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation

/// HTTP/1.1 written by hand over one socket (python3's), for what no client library sends:
/// repeated headers, pipelined requests, a body on a GET.
enum RawHTTP {
    /// Everything the server sends on one connection for `request` (`|` is CRLF), until it closes.
    static func exchange(port: Int, _ request: String) async throws -> String {
        try await offPool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "python3", "-c",
                """
                import socket, sys
                s = socket.create_connection(("127.0.0.1", \(port)), timeout=10)
                s.sendall(sys.argv[1].encode().replace(b"|", b"\\r\\n"))
                data = b""
                while True:
                    chunk = s.recv(65536)
                    if not chunk: break
                    data += chunk
                sys.stdout.write(data.decode())
                """, request,
            ]
            let out = Pipe()
            process.standardOutput = out
            try process.launchSerialized()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return text
        }
    }

    /// The status codes of the responses in `text`, in order.
    static func statuses(_ text: String) -> [String] {
        text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { String($0.prefix(3)) }
    }
}
