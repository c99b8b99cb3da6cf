import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import OpenAPIRuntime

/// Encodes the API's generated answer types to the bytes the OpenAPI runtime's `JSONEncoder` writes
/// with this server's configuration (sorted keys, pretty printed, slashes as written, dates through the
/// runtime's transcoder): byte for byte, which `AnswerEncoderTests` checks against Foundation.
///
/// Why it exists: the profile of an authenticated read (BENCHMARKS.md, issue 23) put half of the
/// handler's CPU in Foundation's encoder, which swift-openapi-runtime gives no way to replace. Hot
/// reads answered by a route of our own (`FastReadRoutes`) encode with this instead; the console
/// reads the same tree as plain values (`plainValue`) instead of encoding and parsing JSON again.
package struct AnswerEncoder: Sendable {
    /// For the dates `InternetDateTime` leaves to it (years outside 1000-9999).
    package var dateTranscoder: any DateTranscoder

    package init(dateTranscoder: any DateTranscoder = ISO8601DateTranscoder()) {
        self.dateTranscoder = dateTranscoder
    }

    /// What this replaces: Foundation's encoder as the OpenAPI runtime configures it for this
    /// server (the test's and the benchmark's baseline; its date strategy is the runtime's
    /// `.from(dateTranscoder:)`, which is this closure).
    package static func runtimeEncoder(dateTranscoder: any DateTranscoder = ISO8601DateTranscoder()) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(try dateTranscoder.encode(date))
        }
        return encoder
    }

    package func bytes(_ value: some Encodable) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        AnswerWriter.write(try tree(value), indent: 0, into: &out)
        return out
    }

    /// The answer as Foundation's plain values (`[String: Any]`, `[Any]`, `String`, `Int`, `Double`,
    /// `Bool`, `NSNull`), as `JSONSerialization` would have read the encoded bytes.
    func plainValue(_ value: some Encodable) throws -> Any {
        try tree(value).plain
    }

    func tree(_ value: some Encodable) throws -> AnswerNode {
        let root = AnswerBox()
        try AnswerEncoding(box: root, path: nil, dates: dateTranscoder).encodeValue(value)
        return root.node
    }
}

/// One encoded value: a scalar as JSON writes it, or a container being filled.
enum AnswerNode {
    case scalar(JSONValue)
    case box(AnswerBox)

    var plain: Any {
        switch self {
        case .scalar(let value):
            switch value {
            case .null: return NSNull()
            case .bool(let bool): return bool
            case .string(let string): return string
            case .number(let lexeme):
                if let int = Int(lexeme) { return int }
                return Double(lexeme) ?? 0
            case .array, .object: return NSNull()  // never a scalar here
            }
        case .box(let box): return box.plain
        }
    }
}

/// A container being encoded: reference-typed, as a nested container writes into its parent after
/// the parent handed it out. Nothing (`nil` everywhere) encodes as an empty object, as Foundation's does.
/// An object's members are kept as encoded (no hashing per key); `members` sorts them and lets the
/// last of a key encoded twice count, as Foundation's keyed container does.
final class AnswerBox {
    var object: [(key: String, node: AnswerNode)]?
    var array: [AnswerNode]?
    var scalar: JSONValue?

    /// What the box holds, a box that was given one scalar being that scalar.
    var node: AnswerNode { scalar.map(AnswerNode.scalar) ?? .box(self) }

    var plain: Any {
        if let scalar { return AnswerNode.scalar(scalar).plain }
        if let array { return array.map(\.plain) }
        var plain: [String: Any] = [:]
        for member in object ?? [] { plain[member.key] = member.node.plain }
        return plain
    }

    /// The object's members in UTF-8 byte order of their keys, each key once (its last value).
    var members: [(key: String, node: AnswerNode)] {
        guard var members = object, members.count > 1 else { return object ?? [] }
        // Stable on equal keys (the offset breaks ties), so the last encoded of a key is kept.
        members = members.enumerated().sorted {
            $0.element.key == $1.element.key
                ? $0.offset < $1.offset : $0.element.key.utf8.lexicographicallyPrecedes($1.element.key.utf8)
        }.map(\.element)
        var unique: [(key: String, node: AnswerNode)] = []
        unique.reserveCapacity(members.count)
        for member in members {
            if unique.last?.key == member.key { unique[unique.count - 1] = member } else { unique.append(member) }
        }
        return unique
    }
}

/// The coding path, kept as a linked list: it is only read when an error is thrown, so a nested
/// container costs one small allocation instead of a copied array.
final class AnswerPath {
    let key: any CodingKey
    let parent: AnswerPath?

    init(_ key: any CodingKey, parent: AnswerPath?) {
        self.key = key
        self.parent = parent
    }

    static func keys(_ path: AnswerPath?) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = path
        while let current = node {
            keys.append(current.key)
            node = current.parent
        }
        return keys.reversed()
    }
}

struct AnswerIndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

/// The `Encoder` handed to each value's `encode(to:)`.
struct AnswerEncoding: Encoder {
    let box: AnswerBox
    let path: AnswerPath?
    let dates: any DateTranscoder

    var codingPath: [any CodingKey] { AnswerPath.keys(path) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if box.object == nil { box.object = [] }
        return KeyedEncodingContainer(Keyed<Key>(encoding: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if box.array == nil { box.array = [] }
        return Unkeyed(encoding: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(encoding: self) }

    /// The encoder of a new container nested under `key` (its `box`, for the parent to hold).
    func nested(at key: any CodingKey) -> AnswerEncoding {
        AnswerEncoding(box: AnswerBox(), path: AnswerPath(key, parent: path), dates: dates)
    }

    /// A value's node: scalars and dates directly, anything else through its own `encode(to:)`.
    func node(_ value: some Encodable, at key: any CodingKey) throws -> AnswerNode {
        if let scalar = try Self.scalar(value, dates: dates) { return .scalar(scalar) }
        if let freeForm = try Self.freeForm(value) { return freeForm }
        let nested = nested(at: key)
        try nested.encodeValue(value)
        return nested.box.node
    }

    func encodeValue<T: Encodable>(_ value: T) throws {
        if let scalar = try Self.scalar(value, dates: dates) {
            box.scalar = scalar
        } else if let freeForm = try Self.freeForm(value) {
            switch freeForm {
            case .scalar(let json): box.scalar = json
            case .box(let filled): (box.object, box.array) = (filled.object, filled.array)
            }
        } else {
            try value.encode(to: self)
        }
    }

    /// The runtime's free-form containers (audit payloads, documents, reports), read from their
    /// `value` by metatype: their own `encode(to:)` asks `as?` of each value, and on Linux a cast of
    /// a dictionary bridges it to an `NSDictionary` first (most of an audit page's encoding time).
    /// Nil when the value is not one of them, or holds a type they would not hold.
    static func freeForm<T: Encodable>(_ value: T) throws -> AnswerNode? {
        if T.self == OpenAPIValueContainer.self { return try freeFormNode((value as! OpenAPIValueContainer).value) }
        if T.self == OpenAPIObjectContainer.self { return try freeFormNode((value as! OpenAPIObjectContainer).value) }
        if T.self == OpenAPIArrayContainer.self { return try freeFormNode((value as! OpenAPIArrayContainer).value) }
        return nil
    }

    private static func freeFormNode(_ contents: (any Sendable)?) throws -> AnswerNode? {
        guard let contents else { return .scalar(.null) }
        let type = Swift.type(of: contents)
        if type == String.self { return .scalar(.string(contents as! String)) }
        if type == Int.self { return .scalar(.number(String(contents as! Int))) }
        if type == Bool.self { return .scalar(.bool(contents as! Bool)) }
        if type == Double.self { return .scalar(.number(try AnswerWriter.lexeme(contents as! Double))) }
        if type == [String: (any Sendable)?].self {
            let box = AnswerBox()
            var members: [(key: String, node: AnswerNode)] = []
            for (key, item) in contents as! [String: (any Sendable)?] {
                guard let node = try freeFormNode(item) else { return nil }
                members.append((key, node))
            }
            box.object = members
            return .box(box)
        }
        if type == [(any Sendable)?].self {
            let box = AnswerBox()
            var items: [AnswerNode] = []
            for item in contents as! [(any Sendable)?] {
                guard let node = try freeFormNode(item) else { return nil }
                items.append(node)
            }
            box.array = items
            return .box(box)
        }
        return nil
    }

    /// The scalars Foundation's encoder writes itself rather than asking the value: dates (through
    /// the transcoder, as the runtime configures it) and the standard library's leaf types, told by
    /// their metatype (a cast of a dictionary would bridge it to an `NSDictionary` on Linux).
    static func scalar<T: Encodable>(_ value: T, dates: any DateTranscoder) throws -> JSONValue? {
        if T.self == String.self { return .string(value as! String) }
        if T.self == Int.self { return .number(String(value as! Int)) }
        if T.self == Bool.self { return .bool(value as! Bool) }
        if T.self == Int64.self { return .number(String(value as! Int64)) }
        if T.self == Int32.self { return .number(String(value as! Int32)) }
        if T.self == Double.self { return .number(try AnswerWriter.lexeme(value as! Double)) }
        if T.self == Date.self {
            let date = value as! Date
            return .string(try InternetDateTime.string(date) ?? dates.encode(date))
        }
        return nil
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoding: AnswerEncoding
        var codingPath: [any CodingKey] { encoding.codingPath }

        private func set(_ node: AnswerNode, _ key: Key) { encoding.box.object!.append((key.stringValue, node)) }

        mutating func encodeNil(forKey key: Key) { set(.scalar(.null), key) }
        mutating func encode(_ value: Bool, forKey key: Key) { set(.scalar(.bool(value)), key) }
        mutating func encode(_ value: String, forKey key: Key) { set(.scalar(.string(value)), key) }
        mutating func encode(_ value: Double, forKey key: Key) throws {
            set(.scalar(.number(try AnswerWriter.lexeme(value))), key)
        }
        mutating func encode(_ value: Float, forKey key: Key) throws {
            set(.scalar(.number(try AnswerWriter.lexeme(value))), key)
        }
        // Every integer type by name: the protocol's generic fallback would reach `encode(to:)`,
        // which asks a single-value container for the same type again.
        mutating func encode(_ value: Int, forKey key: Key) { set(.scalar(.number(String(value))), key) }
        mutating func encode(_ value: Int8, forKey key: Key) { set(.scalar(.number(String(value))), key) }
        mutating func encode(_ value: Int16, forKey key: Key) { set(.scalar(.number(String(value))), key) }
        mutating func encode(_ value: Int32, forKey key: Key) { set(.scalar(.number(String(value))), key) }
        mutating func encode(_ value: Int64, forKey key: Key) { set(.scalar(.number(String(value))), key) }
        mutating func encode(_ value: UInt, forKey key: Key) { set(.scalar(.number(String(value))), key) }
        mutating func encode(_ value: UInt8, forKey key: Key) { set(.scalar(.number(String(value))), key) }
        mutating func encode(_ value: UInt16, forKey key: Key) { set(.scalar(.number(String(value))), key) }
        mutating func encode(_ value: UInt32, forKey key: Key) { set(.scalar(.number(String(value))), key) }
        mutating func encode(_ value: UInt64, forKey key: Key) { set(.scalar(.number(String(value))), key) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            set(try encoding.node(value, at: key), key)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            let nested = encoding.nested(at: key)
            set(.box(nested.box), key)
            return nested.container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let nested = encoding.nested(at: key)
            set(.box(nested.box), key)
            return nested.unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            let nested = encoding.nested(at: key)
            set(.box(nested.box), key)
            return nested
        }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let encoding: AnswerEncoding
        var codingPath: [any CodingKey] { encoding.codingPath }
        var count: Int { encoding.box.array?.count ?? 0 }

        private func append(_ node: AnswerNode) { encoding.box.array!.append(node) }
        private var nextKey: AnswerIndexKey { AnswerIndexKey(intValue: count) }

        mutating func encodeNil() { append(.scalar(.null)) }
        mutating func encode(_ value: Bool) { append(.scalar(.bool(value))) }
        mutating func encode(_ value: String) { append(.scalar(.string(value))) }
        mutating func encode(_ value: Double) throws { append(.scalar(.number(try AnswerWriter.lexeme(value)))) }
        mutating func encode(_ value: Float) throws { append(.scalar(.number(try AnswerWriter.lexeme(value)))) }
        mutating func encode(_ value: Int) { append(.scalar(.number(String(value)))) }
        mutating func encode(_ value: Int8) { append(.scalar(.number(String(value)))) }
        mutating func encode(_ value: Int16) { append(.scalar(.number(String(value)))) }
        mutating func encode(_ value: Int32) { append(.scalar(.number(String(value)))) }
        mutating func encode(_ value: Int64) { append(.scalar(.number(String(value)))) }
        mutating func encode(_ value: UInt) { append(.scalar(.number(String(value)))) }
        mutating func encode(_ value: UInt8) { append(.scalar(.number(String(value)))) }
        mutating func encode(_ value: UInt16) { append(.scalar(.number(String(value)))) }
        mutating func encode(_ value: UInt32) { append(.scalar(.number(String(value)))) }
        mutating func encode(_ value: UInt64) { append(.scalar(.number(String(value)))) }
        mutating func encode<T: Encodable>(_ value: T) throws { append(try encoding.node(value, at: nextKey)) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        {
            let nested = encoding.nested(at: nextKey)
            append(.box(nested.box))
            return nested.container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let nested = encoding.nested(at: nextKey)
            append(.box(nested.box))
            return nested.unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            let nested = encoding.nested(at: nextKey)
            append(.box(nested.box))
            return nested
        }
    }

    struct Single: SingleValueEncodingContainer {
        let encoding: AnswerEncoding
        var codingPath: [any CodingKey] { encoding.codingPath }

        private func set(_ scalar: JSONValue) { encoding.box.scalar = scalar }

        mutating func encodeNil() { set(.null) }
        mutating func encode(_ value: Bool) { set(.bool(value)) }
        mutating func encode(_ value: String) { set(.string(value)) }
        mutating func encode(_ value: Double) throws { set(.number(try AnswerWriter.lexeme(value))) }
        mutating func encode(_ value: Float) throws { set(.number(try AnswerWriter.lexeme(value))) }
        mutating func encode(_ value: Int) { set(.number(String(value))) }
        mutating func encode(_ value: Int8) { set(.number(String(value))) }
        mutating func encode(_ value: Int16) { set(.number(String(value))) }
        mutating func encode(_ value: Int32) { set(.number(String(value))) }
        mutating func encode(_ value: Int64) { set(.number(String(value))) }
        mutating func encode(_ value: UInt) { set(.number(String(value))) }
        mutating func encode(_ value: UInt8) { set(.number(String(value))) }
        mutating func encode(_ value: UInt16) { set(.number(String(value))) }
        mutating func encode(_ value: UInt32) { set(.number(String(value))) }
        mutating func encode(_ value: UInt64) { set(.number(String(value))) }
        mutating func encode<T: Encodable>(_ value: T) throws { try encoding.encodeValue(value) }
    }
}
