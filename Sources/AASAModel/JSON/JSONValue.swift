/// A JSON value that keeps everything a document said: object member order, duplicate keys,
/// and numbers exactly as written. AASA files are small; losing nothing matters more than speed here.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number's lexeme as written (`1`, `1.0`, `1e3` stay distinct), already checked against JSON's grammar.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// A short name of the value's type, for diagnostics ("expected a string, found a number").
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }
}

/// One `"key": value` pair of an object, in document order.
public struct JSONMember: Sendable, Hashable {
    public var key: String
    public var value: JSONValue

    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// An object as an ordered list of members. Lookups are linear: AASA objects have a handful of keys.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public var members: [JSONMember]

    public init(_ members: [JSONMember] = []) {
        self.members = members
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.members = elements.map { JSONMember($0.0, $0.1) }
    }

    public var startIndex: Int { members.startIndex }
    public var endIndex: Int { members.endIndex }
    public subscript(position: Int) -> JSONMember { members[position] }

    /// The value of `key`. With duplicate keys the last one counts, as in Foundation's JSONSerialization.
    public subscript(key: String) -> JSONValue? {
        get { members.last(where: { $0.key == key })?.value }
        set {
            if let i = members.lastIndex(where: { $0.key == key }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append(JSONMember(key, newValue))
            }
        }
    }

    public var keys: [String] { members.map(\.key) }

    public mutating func append(_ key: String, _ value: JSONValue) {
        members.append(JSONMember(key, value))
    }
}

extension JSONValue {
    /// The same value with every object's members in key order: two values that differ only in
    /// the order of their keys (as a JSON object, or PostgreSQL's `jsonb`, does not keep it) are
    /// equal in this form.
    public var keyOrdered: JSONValue {
        switch self {
        case .object(let object):
            return .object(
                JSONObject(object.members.map { JSONMember($0.key, $0.value.keyOrdered) }.sorted { $0.key < $1.key }))
        case .array(let items):
            return .array(items.map(\.keyOrdered))
        default:
            return self
        }
    }
}
