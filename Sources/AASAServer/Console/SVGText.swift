import AASAKernel
import AASAOutbound
import AASARules
import AASAServices

/// Text made safe for SVG or HTML: the drawings are inserted unescaped (`{{{map}}}`), so every
/// string that came from a team goes through here first.
enum SVGText {
    /// `< > & " '` as entities, the rest as it is: a byte at a time (each of the five is one byte in
    /// UTF-8, never part of another character's bytes), and text without any of them unchanged.
    /// The pages' own escaping (`ConsoleTemplates.HTMLText`) is this.
    static func escape(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.contains(where: isSpecial) else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + bytes.count / 8)
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
                case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
                case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
                case UInt8(ascii: "\""): out.append(contentsOf: "&quot;".utf8)
                case UInt8(ascii: "'"): out.append(contentsOf: "&#39;".utf8)
                default: out.append(byte)
                }
            }
            return String(decoding: out, as: UTF8.self)
        } ?? text
    }

    private static func isSpecial(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }

    /// Fills with dark text on them at 4.5:1 or better, one per team in order of name.
    static let palette = [
        "#cfe3ff", "#ffd9b3", "#c9f2d0", "#f7c6dc", "#e3d7ff", "#fff0a8", "#c4eef2", "#f2d0c4", "#dde8b0",
        "#e0e0e0",
    ]
}
