import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASATestSupport
import Foundation

/// HTTP/1.1 written by hand over one socket (python3's), for what no client library sends:
/// repeated headers, pipelined requests, a body on a GET.
enum RawHTTP {
    /// Everything the server sends on one connection for `request` (`|` is CRLF), until it closes.
    static func exchange(port: Int, _ request: String) async throws -> String {
        try await offPool {
            let arguments = [
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
            let result = try Spawn.run("/usr/bin/env", arguments, environment: ProcessInfo.processInfo.environment)
            return String(decoding: result.out, as: UTF8.self)
        }
    }

    /// The status codes of the responses in `text`, in order.
    static func statuses(_ text: String) -> [String] {
        text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { String($0.prefix(3)) }
    }
}
