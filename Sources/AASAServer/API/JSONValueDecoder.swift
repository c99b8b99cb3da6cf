import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices

/// A `Decoder` reading our `JSONValue`, so the runtime's free-form containers
/// (`OpenAPIValueContainer`, `OpenAPIObjectContainer`) are built by their own `Decodable`
/// initialisers. Their `init(unvalidatedValue:)` checks each value with `as?` casts, and on Linux a
/// cast of a dictionary bridges it to an `NSDictionary` first: half of `GET /v1/audit`'s time
/// (the console's profile). Numbers decode as an `Int` when the lexeme is one, else a `Double`, as
/// Foundation's decoder made them; with a key twice, the last one counts.
struct JSONValueDecoder: Decoder {
    let value: JSONValue
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch(JSONObject.self) }
        var members: [String: JSONValue] = [:]
        var keys: [Key] = []
        for member in object.members {
            if members.updateValue(member.value, forKey: member.key) == nil, let key = Key(stringValue: member.key) {
                keys.append(key)
            }
        }
        return KeyedDecodingContainer(Keyed(members: members, allKeys: keys, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch([JSONValue].self) }
        return Unkeyed(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        Single(value: value, codingPath: codingPath)
    }

    /// The runtime's free-form container tries each type in turn and catches the refusals, so a
    /// refusal is built from string literals only (no interpolation per attempt).
    func mismatch(_ type: Any.Type) -> DecodingError {
        let found =
            switch value {
            case .null: "found null"
            case .bool: "found a boolean"
            case .number: "found a number"
            case .string: "found a string"
            case .array: "found an array"
            case .object: "found an object"
            }
        return DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: found))
    }

    struct Single: SingleValueDecodingContainer {
        let value: JSONValue
        let codingPath: [any CodingKey]
        var decoder: JSONValueDecoder { JSONValueDecoder(value: value, codingPath: codingPath) }

        func decodeNil() -> Bool { value == .null }
        func decode(_ type: Bool.Type) throws -> Bool {
            guard case .bool(let bool) = value else { throw decoder.mismatch(type) }
            return bool
        }
        func decode(_ type: String.Type) throws -> String {
            guard case .string(let string) = value else { throw decoder.mismatch(type) }
            return string
        }
        // Every number type, each by name: a generic `decode` alone would also answer these
        // requirements, and `Int32(from:)` asking `decode(Int32.self)` would then recurse forever.
        func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
            guard case .number(let lexeme) = value, let int = I(lexeme) else { throw decoder.mismatch(type) }
            return int
        }
        func decode(_ type: Int.Type) throws -> Int { try integer(type) }
        func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
        func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
        func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
        func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
        func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
        func decode(_ type: Double.Type) throws -> Double {
            guard case .number(let lexeme) = value, let double = Double(lexeme) else { throw decoder.mismatch(type) }
            return double
        }
        func decode(_ type: Float.Type) throws -> Float {
            guard case .number(let lexeme) = value, let float = Float(lexeme) else { throw decoder.mismatch(type) }
            return float
        }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: decoder) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let items: [JSONValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }

        init(items: [JSONValue], codingPath: [any CodingKey]) {
            self.items = items
            self.codingPath = codingPath
        }

        mutating func next() throws -> JSONValueDecoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    JSONValue.self, .init(codingPath: codingPath, debugDescription: "the array has ended"))
            }
            defer { currentIndex += 1 }
            return JSONValueDecoder(value: items[currentIndex], codingPath: codingPath)
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, items[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: try next()) }
        mutating func nestedContainer<N: CodingKey>(keyedBy type: N.Type) throws -> KeyedDecodingContainer<N> {
            try next().container(keyedBy: type)
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
        mutating func superDecoder() throws -> any Decoder { try next() }
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [String: JSONValue]
        let allKeys: [Key]
        let codingPath: [any CodingKey]

        func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }
        func child(_ key: Key) throws -> JSONValueDecoder {
            guard let value = members[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no such key"))
            }
            return JSONValueDecoder(value: value, codingPath: codingPath + [key])
        }
        func decodeNil(forKey key: Key) throws -> Bool { try child(key).value == .null }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try T(from: try child(key)) }
        func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: Key) throws -> KeyedDecodingContainer<N> {
            try child(key).container(keyedBy: type)
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try child(key).unkeyedContainer()
        }
        func superDecoder() throws -> any Decoder {
            JSONValueDecoder(value: .object(JSONObject()), codingPath: codingPath)
        }
        func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
    }
}
