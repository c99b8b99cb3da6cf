/// `Codable` through `JSONValue`, so documents travel inside other JSON (API bodies, manifests)
/// with nothing dropped. Decoding through a `Decoder` cannot see a number's original lexeme or,
/// with some decoders, member order; `AASAParser` reads raw bytes without those limits.
extension JSONValue: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            var object = JSONObject()
            for key in keyed.allKeys {
                object.append(key.stringValue, try keyed.decode(JSONValue.self, forKey: key))
            }
            self = .object(object)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !unkeyed.isAtEnd { elements.append(try unkeyed.decode(JSONValue.self)) }
            self = .array(elements)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let b = try? single.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? single.decode(Int64.self) {
            self = .number(String(i))
        } else if let d = try? single.decode(Double.self) {
            self = .number(d.description)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .number(let lexeme):
            var c = encoder.singleValueContainer()
            if let i = Int64(lexeme) { try c.encode(i) } else { try c.encode(Double(lexeme) ?? 0) }
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .array(let elements):
            var c = encoder.unkeyedContainer()
            for e in elements { try c.encode(e) }
        case .object(let object):
            var c = encoder.container(keyedBy: Key.self)
            for m in object.members { try c.encode(m.value, forKey: Key(stringValue: m.key)) }
        }
    }
}

extension AASADocument: Codable {
    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        var reader = DocumentReader()
        guard let document = reader.read(value) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "an apple-app-site-association document must be a JSON object"))
        }
        self = document
    }

    public func encode(to encoder: any Encoder) throws {
        try jsonValue.encode(to: encoder)
    }
}
