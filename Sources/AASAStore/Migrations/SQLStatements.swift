/// Splits a migration file into statements at top-level semicolons. PostgresNIO sends queries with
/// the extended protocol, which takes one statement at a time; this knows enough SQL lexing to
/// leave semicolons inside quotes, dollar-quoted bodies and comments alone.
enum SQLStatements {
    static func split(_ sql: String) -> [String] {
        let chars = Array(sql.unicodeScalars)
        var statements: [String] = []
        var current = String.UnicodeScalarView()
        var i = 0
        func flush() {
            let text = String(current).trimmingWhitespace()
            if !text.isEmpty && !isOnlyComments(text) { statements.append(text) }
            current = String.UnicodeScalarView()
        }
        while i < chars.count {
            let c = chars[i]
            let next: Unicode.Scalar? = i + 1 < chars.count ? chars[i + 1] : nil
            if c == "-" && next == "-" {
                while i < chars.count && chars[i] != "\n" {
                    current.append(chars[i])
                    i += 1
                }
                continue
            }
            if c == "/" && next == "*" {
                while i < chars.count && !(chars[i] == "*" && i + 1 < chars.count && chars[i + 1] == "/") {
                    current.append(chars[i])
                    i += 1
                }
                if i < chars.count {
                    current.append(chars[i])
                    current.append(chars[i + 1])
                    i += 2
                }
                continue
            }
            if c == "'" || c == "\"" {
                current.append(c)
                i += 1
                while i < chars.count {
                    current.append(chars[i])
                    if chars[i] == c {
                        if i + 1 < chars.count && chars[i + 1] == c {
                            current.append(chars[i + 1])
                            i += 2
                            continue
                        }
                        i += 1
                        break
                    }
                    i += 1
                }
                continue
            }
            if c == "$", let tagEnd = dollarTagEnd(chars, from: i) {
                let tag = Array(chars[i...tagEnd])
                for t in tag { current.append(t) }
                i = tagEnd + 1
                while i < chars.count {
                    if chars[i] == "$" && i + tag.count <= chars.count && Array(chars[i..<(i + tag.count)]) == tag {
                        for t in tag { current.append(t) }
                        i += tag.count
                        break
                    }
                    current.append(chars[i])
                    i += 1
                }
                continue
            }
            if c == ";" {
                flush()
                i += 1
                continue
            }
            current.append(c)
            i += 1
        }
        flush()
        return statements
    }

    /// The index of the closing `$` of a dollar-quote tag (`$$` or `$tag$`) that starts at `start`.
    private static func dollarTagEnd(_ chars: [Unicode.Scalar], from start: Int) -> Int? {
        var j = start + 1
        while j < chars.count {
            let c = chars[j]
            if c == "$" { return j }
            guard c == "_" || c.properties.isAlphabetic || (j > start + 1 && ("0"..."9").contains(c)) else {
                return nil
            }
            j += 1
        }
        return nil
    }

    private static func isOnlyComments(_ text: String) -> Bool {
        text.split(separator: "\n").allSatisfy {
            $0.trimmingWhitespace().isEmpty || $0.trimmingWhitespace().hasPrefix("--")
        }
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
