/// Simple (one scalar to one scalar) lower-casing, so `?` counts the same characters whether or not
/// a rule is case-sensitive. ASCII takes the fast path; other scalars use Unicode's lowercase
/// mapping when it is a single scalar and are left alone otherwise.
enum CaseFolding {
    @inline(__always)
    static func fold(_ c: UInt32) -> UInt32 {
        if c < 0x80 {
            return (c &- 0x41) < 26 ? c | 0x20 : c
        }
        guard let scalar = Unicode.Scalar(c) else { return c }
        let mapped = scalar.properties.lowercaseMapping.unicodeScalars
        guard mapped.count == 1, let first = mapped.first else { return c }
        return first.value
    }

    static func fold(_ scalars: [UInt32]) -> [UInt32] {
        var out = scalars
        for i in out.indices { out[i] = fold(out[i]) }
        return out
    }

    static func fold(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        for c in s.unicodeScalars { out.append(Unicode.Scalar(fold(c.value)) ?? c) }
        return String(out)
    }
}
