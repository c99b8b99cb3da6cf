import Foundation

/// A UUID read from its text, `8-4-4-4-12` hex digits in either case: what `UUID(uuidString:)`
/// accepts, without it. On Linux that initialiser calls `sscanf`, which the console's profile
/// found at 5% of a page that reads a 1,000-rule domain (every stored rule has an ID).
public enum UUIDText {
    public static func parse(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    /// The 32 hex digits without dashes (a token's ID part), in either case.
    public static func parse(undashed text: some StringProtocol) -> UUID? {
        let digits = Array(text.utf8)
        return digits.count == 32 ? uuid(hex: digits) : nil
    }

    /// Where the dashes of the `8-4-4-4-12` form stand.
    private static let dashes = [8, 13, 18, 23]

    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard bytes.count == 36, dashes.allSatisfy({ bytes[$0] == UInt8(ascii: "-") }) else { return nil }
        return uuid(hex: bytes.indices.filter { !dashes.contains($0) }.map { bytes[$0] })
    }

    /// The UUID of 32 hex digits, or nil when one is not a hex digit.
    private static func uuid(hex digits: [UInt8]) -> UUID? {
        var raw = [UInt8](repeating: 0, count: 16)
        for i in 0..<16 {
            guard let high = nibble(digits[2 * i]), let low = nibble(digits[2 * i + 1]) else { return nil }
            raw[i] = high << 4 | low
        }
        return uuid(raw)
    }

    private static func uuid(_ b: [UInt8]) -> UUID {
        UUID(
            uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        )
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
