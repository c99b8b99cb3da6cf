import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation

/// A TCP port on 127.0.0.1 that nothing uses now, for a server started later (a child aasad, an
/// nginx, an origin). It is chosen below the kernel's ephemeral range (32768-60999 on Linux), at
/// random, and checked by binding it. A port the kernel hands out for port 0 would not do: between
/// this check and the child's bind, an in-process test server binding port 0, or any outgoing
/// connection's local end, can take that same port (CI met "Address already in use" that way).
enum FreePort {
    /// 20000 up to the ephemeral range's start (read from the kernel; 32768 by default).
    static let range: Range<Int> = {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let start = text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
        return 20_000..<max(start, 21_000)
    }()

    static func pick() throws -> Int {
        for _ in 0..<200 {
            let port = Int.random(in: range)
            if isFree(port) { return port }
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// Whether a listening socket could bind `port` on 127.0.0.1 now.
    static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
