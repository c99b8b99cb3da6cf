import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation

/// The proxies in front of aasad whose `X-Forwarded-For` is believed: addresses or CIDR ranges,
/// IPv4 or IPv6 (`10.0.0.5`, `10.0.0.0/8`, `fd00::/8`). Issue 41: the console's sign-in throttle
/// counted every user behind the README's TLS proxy as one client.
public struct TrustedProxies: Sendable, Equatable {
    struct Range: Sendable, Equatable {
        var bytes: [UInt8]
        var prefix: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var left = prefix
            for (a, b) in zip(address, bytes) where left > 0 {
                let bits = min(8, left)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if a & mask != b & mask { return false }
                left -= bits
            }
            return true
        }
    }

    struct Problem: Error, CustomStringConvertible {
        var entry: String
        var description: String { "\"\(entry)\" is not an address or a CIDR range (10.0.0.0/8, fd00::/8)" }
    }

    var ranges: [Range] = []

    public init() {}

    /// A comma-separated list; blanks around entries are ignored.
    public init(_ list: String) throws {
        for raw in list.split(separator: ",") {
            let entry = raw.trimmingCharacters(in: .whitespaces)
            guard !entry.isEmpty else { continue }
            let parts = entry.split(separator: "/", maxSplits: 1).map(String.init)
            guard let bytes = Self.bytes(parts[0]) else { throw Problem(entry: entry) }
            var prefix = bytes.count * 8
            if parts.count == 2 {
                guard let given = Int(parts[1]), (0...bytes.count * 8).contains(given) else {
                    throw Problem(entry: entry)
                }
                prefix = given
            }
            ranges.append(Range(bytes: bytes, prefix: prefix))
        }
    }

    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.bytes(address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    /// The client of a request that reached aasad from `peer`: the peer itself, unless it is a
    /// trusted proxy; then the nearest address in `X-Forwarded-For` (read from the right) that is
    /// not one, since each proxy appends the address it was reached from.
    public func client(peer: String?, forwardedFor: String?) -> String? {
        guard let peer, contains(peer), let forwardedFor else { return peer }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() where !hop.isEmpty {
            if !contains(hop) { return Self.bytes(hop) == nil ? peer : hop }
        }
        return hops.first { !$0.isEmpty } ?? peer
    }

    static func bytes(_ text: String) -> [UInt8]? {
        AddressPolicy.ipv4(text) ?? AddressPolicy.ipv6(text)
    }
}
