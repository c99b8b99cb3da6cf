import AASAModel

/// Tables and field lists for people, from the API's JSON. Keys are dotted paths
/// (`actor.name`); arrays print comma-separated; absent values print as `-`.
enum Table {
    static func value(_ json: JSONValue, _ path: String) -> String {
        var current: JSONValue? = json
        for key in path.split(separator: ".") { current = current?.objectValue?[String(key)] }
        return text(current)
    }

    static func text(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: "-"
        case .string(let s)?: s.isEmpty ? "\"\"" : s
        case .bool(let b)?: b ? "yes" : "no"
        case .number(let n)?: n
        case .array(let items)?: items.isEmpty ? "-" : items.map { text($0) }.joined(separator: ",")
        case .object?: JSONWriter().string(value!)
        }
    }

    /// `items` (or the top-level array) as aligned columns.
    static func rows(_ json: JSONValue, _ columns: [(header: String, path: String)], items key: String = "items")
        -> [String]
    {
        let items = json.arrayValue ?? json.objectValue?[key]?.arrayValue ?? []
        let cells = items.map { item in columns.map { value(item, $0.path) } }
        return align([columns.map(\.header)] + cells)
    }

    static func align(_ rows: [[String]]) -> [String] {
        guard let first = rows.first else { return [] }
        let widths = first.indices.map { i in rows.map { $0[i].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
            }
            .joined(separator: "  ")
        }
    }

    /// One object as `Label: value` lines.
    static func fields(_ json: JSONValue, _ fields: [(label: String, path: String)]) -> [String] {
        align(fields.map { ["\($0.label):", value(json, $0.path)] })
    }

    /// Warnings or findings (`code path message`) under a heading, or nothing.
    static func findings(_ json: JSONValue?, heading: String) -> [String] {
        let items = json?.arrayValue ?? []
        guard !items.isEmpty else { return [] }
        return [heading]
            + items.map {
                let path = $0.objectValue?["path"]?.stringValue ?? ""
                return "  \(value($0, "code"))\(path.isEmpty ? "" : " " + path): \(value($0, "message"))"
            }
    }
}

extension String {
    fileprivate func padding(toLength length: Int, withPad pad: String, startingAt: Int) -> String {
        count >= length ? self : self + String(repeating: pad, count: length - count)
    }
}
