import AASAModel

/// jsonb columns travel as text (`col::text` out, `$n::text::jsonb` in) and are read with
/// AASAModel's lossless parser, so member order and number lexemes survive a round trip.
enum JSONColumn {
    static func decode(_ text: String) -> JSONValue {
        (try? JSONParser.parse(text).value) ?? .null
    }

    static func decode(_ text: String?) -> JSONValue? {
        text.map { decode($0) }
    }

    static func encode(_ value: JSONValue) -> String {
        JSONWriter().string(value)
    }
}
