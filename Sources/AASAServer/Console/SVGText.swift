/// Text made safe for SVG or HTML: the drawings are inserted unescaped (`{{{map}}}`), so every
/// string that came from a team goes through here first.
enum SVGText {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    /// Fills with dark text on them at 4.5:1 or better, one per team in order of name.
    static let palette = [
        "#cfe3ff", "#ffd9b3", "#c9f2d0", "#f7c6dc", "#e3d7ff", "#fff0a8", "#c4eef2", "#f2d0c4", "#dde8b0",
        "#e0e0e0",
    ]
}
