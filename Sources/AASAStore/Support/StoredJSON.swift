import Foundation

/// The JSON a value is stored as in a jsonb column (a target and its last outcome, an app's key
/// labels, a team's trust rules): sorted keys and slashes as written, so equal values are stored
/// as equal text.
package enum StoredJSON {
    package static func encode<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// Nil for text that is not such a value (a row from a later schema is skipped, not fatal).
    package static func decode<T: Decodable>(_ type: T.Type, _ text: String) -> T? {
        try? JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
