import Crypto

/// Bytes and digests as the service writes them: lower-case hex, in revisions, migration checksums, ETags.
public enum Hex {
    public static func string<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The SHA-256 of `bytes` in lower-case hex.
    public static func sha256<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var hasher = SHA256()
        hasher.update(data: Array(bytes))
        return string(hasher.finalize())
    }
}
