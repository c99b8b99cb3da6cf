/// Percent-encoding as URL matching needs it.
enum PercentEncoding {
    /// `%XX` sequences decoded to bytes, the result read as UTF-8. Nil when a `%` is not followed by
    /// two hex digits or the bytes are not UTF-8 (see `Readings.undecodableComponentComparedAsWritten`).
    static func decode(_ s: Substring.UTF8View) -> [UInt32]? {
        guard s.contains(UInt8(ascii: "%")) else { return scalars(ofUTF8: Array(s)) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(s.count)
        var i = s.startIndex
        while i != s.endIndex {
            let b = s[i]
            if b == UInt8(ascii: "%") {
                let h1 = s.index(after: i)
                guard h1 != s.endIndex, let hi = hexValue(s[h1]) else { return nil }
                let h2 = s.index(after: h1)
                guard h2 != s.endIndex, let lo = hexValue(s[h2]) else { return nil }
                bytes.append(hi << 4 | lo)
                i = s.index(after: h2)
            } else {
                bytes.append(b)
                i = s.index(after: i)
            }
        }
        return scalars(ofUTF8: bytes)
    }

    static func scalars(ofUTF8 bytes: [UInt8]) -> [UInt32]? {
        var out: [UInt32] = []
        out.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let s): out.append(s.value)
            case .emptyInput: return out
            case .error: return nil
            }
        }
    }

    /// Scalars of text as written (no decoding).
    static func scalars(_ s: Substring) -> [UInt32] {
        s.unicodeScalars.map(\.value)
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Encodes what a browser or `URL(string:)` would encode before a URL reaches the system: bytes
    /// outside printable ASCII and the characters RFC 3986 never allows raw. `%` is left alone.
    static func encodeForURL(_ s: String) -> String {
        guard s.utf8.contains(where: mustEncode) else { return s }
        var out: [UInt8] = []
        for b in s.utf8 {
            if mustEncode(b) {
                out.append(UInt8(ascii: "%"))
                out.append(contentsOf: hex(Int(b), width: 2).utf8)
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    @inline(__always)
    private static func mustEncode(_ b: UInt8) -> Bool {
        switch b {
        case 0...0x20, 0x7F...0xFF, UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"),
            UInt8(ascii: "^"), UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"):
            return true
        default:
            return false
        }
    }
}
