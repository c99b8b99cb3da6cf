/// Apple's built-in substitution variables. The one-character classes are sets; `$(region)` and
/// `$(lang)` are ICU's fixed tables (shipped as data, never read from Foundation at run time:
/// Linux and Apple's systems differ).
public enum PredefinedVariable: String, Sendable, CaseIterable {
    case alpha, upper, lower, alnum, digit, xdigit, region, lang

    public static func named(_ name: String) -> PredefinedVariable? { PredefinedVariable(rawValue: name) }

    /// For the one-character classes: the ASCII characters they accept.
    var characterClass: ASCIIClass? {
        switch self {
        case .alpha: ASCIIClass { ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }
        case .upper: ASCIIClass { $0 >= 0x41 && $0 <= 0x5A }
        case .lower: ASCIIClass { $0 >= 0x61 && $0 <= 0x7A }
        case .alnum:
            ASCIIClass { ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) }
        case .digit: ASCIIClass { $0 >= 0x30 && $0 <= 0x39 }
        case .xdigit:
            ASCIIClass { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x46) || ($0 >= 0x61 && $0 <= 0x66) }
        case .region, .lang: nil
        }
    }

    /// For the list variables: their values.
    var values: [String]? {
        switch self {
        case .region: PredefinedVariableTables.region
        case .lang: PredefinedVariableTables.lang
        default: nil
        }
    }
}

/// A set of ASCII characters as a 128-bit map.
struct ASCIIClass: Sendable, Hashable {
    var low: UInt64 = 0
    var high: UInt64 = 0

    init() {}

    init(_ predicate: (UInt32) -> Bool) {
        for c in UInt32(0)..<128 where predicate(c) { insert(c) }
    }

    mutating func insert(_ c: UInt32) {
        if c < 64 { low |= 1 << UInt64(c) } else if c < 128 { high |= 1 << UInt64(c - 64) }
    }

    @inline(__always)
    func contains(_ c: UInt32) -> Bool {
        if c < 64 { return low & (1 << UInt64(c)) != 0 }
        if c < 128 { return high & (1 << UInt64(c - 64)) != 0 }
        return false
    }

    /// The class as seen through case folding: each member replaced by its lower-case form.
    var folded: ASCIIClass {
        var out = ASCIIClass()
        for c in UInt32(0)..<128 where contains(c) { out.insert(CaseFolding.fold(c)) }
        return out
    }

    var members: [UInt32] { (UInt32(0)..<128).filter(contains) }
}
