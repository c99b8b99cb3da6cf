/// The origin a passkey server sees from an Android app: `android:apk-key-hash:` and the base64url
/// encoding, without padding, of the 32 bytes of the signing certificate's SHA-256 (not of its hex
/// text). Google's example: `14:6D:E9:…:44:E5` is `android:apk-key-hash:FG3pg8VzBlDY7rmVLzT8ZBagg0LmHb6oigSWsj_PROU`.
/// WebAuthn server libraries compare origins as strings, so this exact form is what they are given.
public enum AndroidOrigin {
    public static let prefix = "android:apk-key-hash:"

    /// The origin of a fingerprint in the registry's form (32 colon-separated hex bytes); nil for
    /// any other text.
    public static func of(fingerprint: String) -> String? {
        let parts = fingerprint.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            bytes.append(byte)
        }
        return prefix + base64URL(bytes)
    }

    /// RFC 4648 §5, without padding.
    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var out = ""
        var i = 0
        while i < bytes.count {
            let chunk = bytes[i..<min(i + 3, bytes.count)]
            var n = UInt32(0)
            for (k, b) in chunk.enumerated() { n |= UInt32(b) << (16 - 8 * k) }
            for k in 0...chunk.count { out.append(alphabet[Int((n >> (18 - 6 * k)) & 63)]) }
            i += 3
        }
        return out
    }
}
