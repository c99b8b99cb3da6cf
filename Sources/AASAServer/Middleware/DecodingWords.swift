import AASAModel
import Foundation

/// A decoding failure in a person's words: what the field takes, with an example, never a Swift type
/// (issue 63: "expected Dictionary<String, Any> at /rules/0" and "Cannot initialize Service from
/// invalid String value webcredential" reached users).
enum DecodingWords {
    /// What a value of `type` is, for a person: "a JSON object such as {"/": "/shop/*"}" for a rule.
    static func expected(_ type: Any.Type, at field: String) -> String {
        let name = String(describing: type)
        if ["String", "Substring"].contains(name) { return "a string" }
        if ["Int", "Int32", "Int64", "UInt", "UInt32", "UInt64"].contains(name) { return "an integer" }
        if ["Double", "Float"].contains(name) { return "a number" }
        if name == "Bool" { return "true or false" }
        if name.hasPrefix("Array") || name.hasPrefix("[") { return "a JSON array" }
        if field.hasPrefix("/rules/") { return "a JSON object such as {\"/\": \"/shop/*\"}" }
        return "a JSON object"
    }

    /// The value a string enum refused, from the runtime's "Cannot initialize T from invalid String
    /// value V" (the only place it is said).
    static func invalidEnumValue(_ description: String) -> String? {
        guard description.hasPrefix("Cannot initialize "),
            let range = description.range(of: " from invalid String value ")
        else { return nil }
        return String(description[range.upperBound...])
    }

    /// `value` is not one `field` takes, with the ones it does when the field is one of the registry's words.
    static func notAllowed(_ value: String, at field: String) -> String {
        let key = field.split(separator: "/").last(where: { Int($0) == nil }).map(String.init) ?? ""
        let allowed: [String]? =
            switch key {
            case "services", "service": AppService.allCases.map(\.rawValue)
            case "scopes", "scope": TokenScope.allCases.map(\.rawValue)
            case "platform": AppPlatform.allCases.map(\.rawValue)
            case "role": ["read", "write", "admin"]
            default: nil
            }
        guard let allowed else { return "\(field) does not take \"\(value)\"" }
        let near = allowed.first { $0.hasPrefix(value) || value.hasPrefix($0) }.map { " (did you mean \($0)?)" } ?? ""
        return "\(field) is one of \(allowed.joined(separator: ", ")), not \"\(value)\"\(near)"
    }
}
