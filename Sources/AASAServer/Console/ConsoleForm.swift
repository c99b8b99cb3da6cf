import Foundation

/// `application/x-www-form-urlencoded`, read and written: the console's forms and query strings.
enum ConsoleForm {
    static func decode(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func value(_ s: Substring) -> String {
                s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if let name = parts.first { fields[value(name)] = parts.count > 1 ? value(parts[1]) : "" }
        }
        return fields
    }

    static func encode(_ fields: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.sorted { $0.key < $1.key }.map { field in
            let name = field.key.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
            let value = field.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
            return "\(name)=\(value)"
        }.joined(separator: "&")
    }
}
