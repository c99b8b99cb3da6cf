import Foundation

/// `apps.key_labels`, a JSON object from fingerprint to label, read and written as text: the
/// labels are few (at most one per fingerprint, 20), so one small JSON object per row.
enum KeyLabelsColumn {
    static func decode(_ text: String) -> [String: String] {
        (try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))) ?? [:]
    }

    static func encode(_ labels: [String: String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(labels)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
