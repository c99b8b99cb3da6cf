import AASAModel
import Yams

/// YAML (and JSON, which YAML reads too) as AASAModel's JSON values, keeping key order. Scalars
/// take YAML 1.2 core types: `true`, `12`, `null` unquoted; anything quoted stays a string.
enum YAMLJSON {
    static func parse(_ text: String, file: String) throws -> JSONValue {
        let node: Node?
        do { node = try Yams.compose(yaml: text) } catch { throw CLIFailure("\(file): not YAML or JSON: \(error)") }
        guard let node else { throw CLIFailure("\(file) is empty") }
        return try value(node, file: file)
    }

    private static func value(_ node: Node, file: String) throws -> JSONValue {
        switch node {
        case .scalar(let scalar):
            if scalar.style != .plain { return .string(scalar.string) }
            switch node.tag.description {
            case "tag:yaml.org,2002:null": return .null
            case "tag:yaml.org,2002:bool": return .bool(["true", "yes", "on"].contains(scalar.string.lowercased()))
            case "tag:yaml.org,2002:int", "tag:yaml.org,2002:float":
                // JSON numbers only (YAML also reads 0x1F, 1_000, .inf): anything else stays text.
                return (try? JSONParser.parse(scalar.string).value).map {
                    if case .number = $0 { $0 } else { .string(scalar.string) }
                } ?? .string(scalar.string)
            default: return .string(scalar.string)
            }
        case .sequence(let sequence):
            return .array(try sequence.map { try value($0, file: file) })
        case .mapping(let mapping):
            var object = JSONObject()
            for (key, item) in mapping {
                guard case .scalar(let k) = key else { throw CLIFailure("\(file): a key must be a plain string") }
                object.append(k.string, try value(item, file: file))
            }
            return .object(object)
        case .alias:
            throw CLIFailure("\(file): YAML aliases are not supported")
        }
    }
}
