import AASAKernel
import Foundation
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// Which addresses the probe, the CDN monitor (and anything else that fetches a URL a caller
/// names) may connect to. A domain whose name resolves to this machine or a private network would
/// otherwise turn aasad into a way to read internal HTTPS services (issue 24): loopback, private,
/// carrier-grade NAT, link-local, unique-local, multicast, unspecified and reserved ranges are
/// refused, IPv4 mapped or translated into IPv6 included.
package enum AddressPolicy {
    package static func isPrivate(_ address: String) -> Bool {
        if let v4 = ipv4(address) { return isPrivate(v4: v4) }
        if let v6 = ipv6(address) { return isPrivate(v6: v6) }
        return true  // not an address at all: nothing to connect to
    }

    package static func isPrivate(v4 b: [UInt8]) -> Bool {
        switch (b[0], b[1]) {
        case (0, _), (10, _), (127, _), (169, 254), (192, 168): true
        case (100, 64...127): true  // carrier-grade NAT
        case (172, 16...31): true
        case (192, 0) where b[2] == 0 || b[2] == 2: true  // IETF protocol assignments, TEST-NET-1
        case (198, 18...19): true  // benchmarking
        case (198, 51) where b[2] == 100, (203, 0) where b[2] == 113: true  // TEST-NET-2, -3
        case (224...255, _): true  // multicast, reserved, broadcast
        default: false
        }
    }

    package static func isPrivate(v6 b: [UInt8]) -> Bool {
        let zeroPrefix = b[0..<10].allSatisfy { $0 == 0 }
        if zeroPrefix && b[10] == 0xFF && b[11] == 0xFF { return isPrivate(v4: Array(b[12..<16])) }  // ::ffff:a.b.c.d
        if b[0..<12].allSatisfy({ $0 == 0 }) { return true }  // ::, ::1 and the old IPv4-compatible form
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B {  // 64:ff9b::/96, NAT64
            return isPrivate(v4: Array(b[12..<16]))
        }
        if b[0] & 0xFE == 0xFC { return true }  // fc00::/7 unique local
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return true }  // fe80::/10 link-local
        if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return true }  // fec0::/10 site-local (deprecated)
        if b[0] == 0xFF { return true }  // multicast
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8 { return true }  // documentation
        return false
    }

    package static func ipv4(_ s: String) -> [UInt8]? {
        var addr = in_addr()
        guard inet_pton(AF_INET, s, &addr) == 1 else { return nil }
        return withUnsafeBytes(of: &addr) { Array($0) }
    }

    package static func ipv6(_ s: String) -> [UInt8]? {
        var addr = in6_addr()
        guard inet_pton(AF_INET6, s, &addr) == 1 else { return nil }
        return withUnsafeBytes(of: &addr) { Array($0) }
    }
}

/// The system resolver (getaddrinfo, as the HTTP client's own connection would use), run on NIO's
/// thread pool: every address a host name has, as text.
package enum SystemResolver {
    package static func addresses(of host: String) async throws -> [String] {
        try await NIOThreadPool.singleton.runIfActive {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, nil, &hints, &list)
            guard status == 0, let first = list else {
                throw ResolveError(host: host, reason: String(cString: gai_strerror(status)))
            }
            defer { freeaddrinfo(first) }
            var out: [String] = []
            var next: UnsafeMutablePointer<addrinfo>? = first
            while let info = next {
                if let sa = info.pointee.ai_addr, let text = numericHost(sa, family: info.pointee.ai_family),
                    !out.contains(text)
                {
                    out.append(text)
                }
                next = info.pointee.ai_next
            }
            guard !out.isEmpty else { throw ResolveError(host: host, reason: "no address") }
            return out
        }
    }

    /// The address of a `sockaddr` as text (inet_ntop).
    private static func numericHost(_ sa: UnsafeMutablePointer<sockaddr>, family: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let ok: Bool
        switch family {
        case AF_INET:
            ok =
                sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    withUnsafePointer(to: sin.pointee.sin_addr) {
                        inet_ntop(AF_INET, $0, &buffer, socklen_t(buffer.count))
                    }
                } != nil
        case AF_INET6:
            ok =
                sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                    withUnsafePointer(to: sin6.pointee.sin6_addr) {
                        inet_ntop(AF_INET6, $0, &buffer, socklen_t(buffer.count))
                    }
                } != nil
        default: ok = false
        }
        return ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
    }

    package struct ResolveError: Error, CustomStringConvertible {
        package var host: String
        package var reason: String
        package var description: String { "cannot resolve \(host): \(reason)" }
    }
}

/// A host that resolves to an address the policy refuses.
package struct PrivateAddressRefused: Error {
    package var address: String
}

extension FetchConfig {
    /// The one application of the policy to a host, for the probe's fetches and webhook URLs: nil
    /// when the operator's overrides name the host (connect as they say, no lookup), else its
    /// addresses from one lookup (the lookup's error when it fails). Unless private addresses are
    /// allowed, `PrivateAddressRefused` names the first private one.
    package func checkedAddresses(of host: String) async throws -> [String]? {
        guard resolve[host] == nil else { return nil }
        let addresses = try await lookup(host)
        if !allowPrivate, let refused = addresses.first(where: AddressPolicy.isPrivate) {
            throw PrivateAddressRefused(address: refused)
        }
        return addresses
    }
}
