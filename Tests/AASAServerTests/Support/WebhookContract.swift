import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import Yams

/// The webhook payload as openapi.yaml documents it (`WebhookPayload`, and the `data` schema that
/// `WebhookEventName`'s `x-event-data` names per event), checked against what a receiver got: the
/// required members, the types and the enums, the small part of JSON Schema these schemas use.
enum WebhookContract {
    // Read once, never written after: safe to share between the tests running at once.
    nonisolated(unsafe) static let schemas: [String: Any] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("openapi.yaml")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        let document = (try? Yams.load(yaml: text)) as? [String: Any] ?? [:]
        return (document["components"] as? [String: Any])?["schemas"] as? [String: Any] ?? [:]
    }()

    /// Where `body` breaks the documented payload of its event (empty: it conforms).
    static func violations(_ body: String) -> [String] {
        guard let payload = try? JSONParser.parse(Array(body.utf8)).value, let root = payload.objectValue else {
            return ["not a JSON object"]
        }
        var found = check(payload, schema(named: "WebhookPayload"), at: "")
        let event = root["event"]?.objectValue
        let names = (schemas["WebhookEventName"] as? [String: Any])?["x-event-data"] as? [String: String] ?? [:]
        guard let name = event?["name"]?.stringValue, let reference = names[name] else {
            return found + ["/event/name: no x-event-data for it"]
        }
        let data = event?["data"] ?? .null
        found += check(data, schema(named: String(reference.split(separator: "/").last!)), at: "/event/data")
        return found
    }

    private static func schema(named name: String) -> [String: Any] { schemas[name] as? [String: Any] ?? [:] }

    private static func check(_ value: JSONValue, _ schema: [String: Any], at path: String) -> [String] {
        if let reference = schema["$ref"] as? String {
            return check(value, self.schema(named: String(reference.split(separator: "/").last!)), at: path)
        }
        var found: [String] = []
        let types = (schema["type"] as? [String]) ?? (schema["type"] as? String).map { [$0] } ?? []
        if !types.isEmpty && !types.contains(where: { matches(value, $0) }) {
            found.append("\(path): a \(value.typeName) is not \(types.joined(separator: " or "))")
        }
        if let allowed = schema["enum"] as? [String], let text = value.stringValue, !allowed.contains(text) {
            found.append("\(path): \(text) is not one of \(allowed)")
        }
        if let object = value.objectValue {
            for key in schema["required"] as? [String] ?? [] where object[key] == nil {
                found.append("\(path)/\(key): required, absent")
            }
            for (key, sub) in schema["properties"] as? [String: Any] ?? [:] {
                if let member = object[key], let sub = sub as? [String: Any] {
                    found += check(member, sub, at: "\(path)/\(key)")
                }
            }
        }
        return found
    }

    private static func matches(_ value: JSONValue, _ type: String) -> Bool {
        switch (type, value) {
        case ("string", .string), ("object", .object), ("array", .array), ("null", .null), ("boolean", .bool): true
        case ("integer", .number(let lexeme)): lexeme.allSatisfy { $0.isNumber || $0 == "-" }
        case ("number", .number): true
        default: false
        }
    }
}
