import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 request sent in two halves over a raw socket: the head and part of the body now,
/// the rest later. Between the two the request is certainly in flight at the server, which is
/// what a graceful-shutdown test needs to hold a request open across SIGTERM.
final class SlowRequest: @unchecked Sendable {
    private let fd: Int32
    private let rest: [UInt8]

    init(port: Int, method: String, path: String, token: String, json: String) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        self.fd = fd
        let body = Array(json.utf8)
        let head =
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let half = body.count / 2
        rest = Array(body[half...])
        try send(Array(head.utf8) + body[..<half])
    }

    /// Sends the rest of the body and reads the whole response; returns its status (0 when the
    /// connection ended without one).
    func finish() throws -> (status: Int, body: String) {
        try send(rest)
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            response += buffer[..<n]
        }
        close(fd)
        let text = String(decoding: response, as: UTF8.self)
        let status = text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        let body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
        return (status, body)
    }

    private func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw POSIXError(.EPIPE) }
            offset += n
        }
    }
}
