/// Where and why a byte sequence is not JSON.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case syntax
        /// Bytes that are not UTF-8.
        case encoding
        /// Nesting deeper than `JSONParser.Limits.maxDepth`.
        case depth
    }

    public var kind: Kind
    public var message: String
    /// Where in the document the parser was: the member or element being read.
    public var path: JSONPointer
    /// Byte offset of the offending byte.
    public var offset: Int
    /// 1-based line and column (column counted in Unicode scalars).
    public var line: Int
    public var column: Int

    public var description: String { "line \(line), column \(column): \(message)" }
}

/// A strict RFC 8259 parser over bytes that never traps on hostile input: nesting depth is bounded,
/// UTF-8 is validated, and common hand-editing mistakes (trailing commas, comments, typographic
/// quotes) get a message that names them. Duplicate keys are kept (see `JSONObject`) and reported.
public struct JSONParser {
    public struct Limits: Sendable {
        /// Deeper nesting is refused instead of recursing without bound.
        public var maxDepth: Int = 128
        public init(maxDepth: Int = 128) { self.maxDepth = maxDepth }
    }

    /// A key that appears twice in one object: JSON allows it, but only one of the values counts.
    public struct DuplicateKey: Sendable, Equatable {
        /// JSON pointer of the object that holds the key twice.
        public var objectPath: JSONPointer
        public var key: String
    }

    public struct Output: Sendable {
        public var value: JSONValue
        public var duplicateKeys: [DuplicateKey]
        /// The input started with a UTF-8 byte order mark (accepted, but worth a warning).
        public var hadByteOrderMark: Bool
    }

    public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(JSONSyntaxError) -> Output {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) -> Output in
            var parser = Cursor(bytes: buffer, limits: limits)
            return try parser.parseDocument()
        }
    }

    public static func parse(_ text: String, limits: Limits = Limits()) throws(JSONSyntaxError) -> Output {
        try parse(Array(text.utf8), limits: limits)
    }
}

private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    let limits: JSONParser.Limits
    var index = 0
    var depth = 0
    var duplicateKeys: [JSONParser.DuplicateKey] = []
    /// Where the parser is, as pointer tokens: kept as one stack (pushed and popped per member and
    /// element) and made into a pointer only for an error or a duplicate key.
    var tokens: [String] = []
    var path: JSONPointer { JSONPointer(tokens: tokens) }

    init(bytes: UnsafeBufferPointer<UInt8>, limits: JSONParser.Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONParser.Output {
        var bom = false
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            index = 3
            bom = true
        }
        skipWhitespace()
        if index == bytes.count { throw error("the document is empty") }
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count {
            throw error("unexpected \(describeByte(at: index)) after the end of the document")
        }
        return .init(value: value, duplicateKeys: duplicateKeys, hadByteOrderMark: bom)
    }

    // MARK: values

    mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input: a value is missing") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectWord("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectWord("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectWord("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw unexpected(expecting: "a value")
        }
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > limits.maxDepth {
            throw error("nesting deeper than \(limits.maxDepth) levels", kind: .depth)
        }
    }

    mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1  // {
        var object = JSONObject()
        // Small objects (most of them) find a duplicate key by a scan; a set only past that.
        var seen: Set<String>?
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            index += 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input inside an object: '}' is missing") }
            if bytes[index] == UInt8(ascii: "}") {
                throw error("trailing comma before '}': remove the comma after the last member")
            }
            guard bytes[index] == UInt8(ascii: "\"") else {
                throw unexpected(expecting: "a member name in double quotes")
            }
            let key = try parseString()
            let duplicate: Bool
            if object.members.count < 16 {
                duplicate = object.members.contains { $0.key == key }
            } else {
                if seen == nil { seen = Set(object.members.map(\.key)) }
                duplicate = !seen!.insert(key).inserted
            }
            if duplicate { duplicateKeys.append(.init(objectPath: path, key: key)) }
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw unexpected(expecting: "':' after the member name \"\(key)\"") }
            index += 1
            skipWhitespace()
            tokens.append(key)
            let value = try parseValue()
            tokens.removeLast()
            object.append(key, value)
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input inside an object: '}' is missing") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(object)
            case UInt8(ascii: "\""): throw error("missing comma between object members")
            default: throw unexpected(expecting: "',' or '}' after a member")
            }
        }
    }

    mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            if peek(UInt8(ascii: "]")) {
                throw error("trailing comma before ']': remove the comma after the last element")
            }
            tokens.append(String(elements.count))
            elements.append(try parseValue())
            tokens.removeLast()
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input inside an array: ']' is missing") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""):
                throw error("missing comma between array elements")
            default: throw unexpected(expecting: "',' or ']' after an element")
            }
        }
    }

    mutating func parseString() throws(JSONSyntaxError) -> String {
        let open = index
        index += 1  // opening quote
        // Most strings have no escape: they are validated and decoded from the bytes in one step.
        // Only a string with an escape collects its UTF-8 into a buffer, which grows geometrically:
        // appending to a `String.UnicodeScalarView` with `append(contentsOf:)` reserved the exact
        // new size each time, so a string of N escapes cost N² (issue 49: 2.4 MB of escaped
        // surrogate pairs took 12 s).
        var collected: [UInt8]?
        var runStart = index
        while true {
            guard index < bytes.count else {
                index = open
                throw error("unterminated string: the closing '\"' is missing")
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                try validateRun(from: runStart, to: index)
                guard var utf8 = collected.take() else {
                    let run = text(from: runStart, to: index)
                    index += 1
                    return run
                }
                utf8.append(contentsOf: bytes[runStart..<index])
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                try validateRun(from: runStart, to: index)
                var utf8 = collected.take() ?? []
                utf8.append(contentsOf: bytes[runStart..<index])
                try parseEscape(into: &utf8)
                collected = utf8
                runStart = index
                continue
            }
            if byte < 0x20 {
                throw error(
                    byte == 0x0A
                        ? "line break inside a string: strings must close on the line they open (or write \\n)"
                        : "control character U+\(hex(Int(byte), width: 4)) inside a string must be escaped")
            }
            index += 1
        }
    }

    /// bytes[from..<to], already validated as UTF-8, as a String.
    func text(from start: Int, to end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// Checks that bytes[from..<to], which contain no quote, backslash or control byte, are UTF-8
    /// (no overlong form, no surrogate), naming the first byte that is not.
    mutating func validateRun(from start: Int, to end: Int) throws(JSONSyntaxError) {
        var i = start
        while i < end {
            let b0 = bytes[i]
            if b0 < 0x80 {
                i += 1
                continue
            }
            let (scalar, length) = decodeUTF8(at: i, limit: end)
            guard scalar != nil else {
                index = i
                throw error(
                    "invalid UTF-8 byte 0x\(hex(Int(b0), width: 2)): the file must be UTF-8 text", kind: .encoding)
            }
            i += length
        }
    }

    /// Decodes one multi-byte UTF-8 sequence, rejecting overlong forms and surrogates.
    func decodeUTF8(at i: Int, limit: Int) -> (Unicode.Scalar?, Int) {
        let b0 = bytes[i]
        let length: Int
        var value: UInt32
        switch b0 {
        case 0xC2...0xDF:
            length = 2
            value = UInt32(b0 & 0x1F)
        case 0xE0...0xEF:
            length = 3
            value = UInt32(b0 & 0x0F)
        case 0xF0...0xF4:
            length = 4
            value = UInt32(b0 & 0x07)
        default: return (nil, 1)
        }
        guard i + length <= limit else { return (nil, 1) }
        for k in 1..<length {
            let b = bytes[i + k]
            guard b & 0xC0 == 0x80 else { return (nil, 1) }
            value = (value << 6) | UInt32(b & 0x3F)
        }
        let minimum: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return (nil, 1) }
        return (scalar, length)
    }

    /// One escape's scalar, appended to `utf8` as UTF-8.
    mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONSyntaxError) {
        func append(_ scalar: Unicode.Scalar) { utf8.append(contentsOf: UTF8.encode(scalar)!) }
        index += 1  // backslash
        guard index < bytes.count else { throw error("unterminated escape sequence") }
        let c = bytes[index]
        index += 1
        switch c {
        case UInt8(ascii: "\""): append("\"")
        case UInt8(ascii: "\\"): append("\\")
        case UInt8(ascii: "/"): append("/")
        case UInt8(ascii: "b"): append("\u{08}")
        case UInt8(ascii: "f"): append("\u{0C}")
        case UInt8(ascii: "n"): append("\n")
        case UInt8(ascii: "r"): append("\r")
        case UInt8(ascii: "t"): append("\t")
        case UInt8(ascii: "u"):
            let high = try parseHex4()
            if (0xD800...0xDBFF).contains(high) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else {
                    throw error("\\u\(hex(Int(high), width: 4)) is half of a surrogate pair with no second half")
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error("\\u\(hex(Int(high), width: 4)) is not followed by a low surrogate")
                }
                let value = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                append(Unicode.Scalar(value)!)
            } else if (0xDC00...0xDFFF).contains(high) {
                throw error("\\u\(hex(Int(high), width: 4)) is a lone low surrogate")
            } else {
                append(Unicode.Scalar(high)!)
            }
        default:
            index -= 2
            throw error(
                "invalid escape '\\\(describeScalar(c))': JSON knows \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX")
        }
    }

    mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("\\u needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error("\\u needs four hex digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    mutating func parseNumber() throws(JSONSyntaxError) -> String {
        let start = index
        if peek(UInt8(ascii: "-")) { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("a number needs a digit after '-'") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("numbers must not have leading zeros") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if peek(UInt8(ascii: ".")) {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("a number needs a digit after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("a number needs a digit in its exponent")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    mutating func expectWord(_ word: StaticString) throws(JSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        let matches = index + count <= bytes.count && (0..<count).allSatisfy { bytes[index + $0] == word.utf8Start[$0] }
        guard matches else { throw unexpected(expecting: "a value") }
        index += count
    }

    // MARK: helpers

    func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    func peek(_ b: UInt8) -> Bool { index < bytes.count && bytes[index] == b }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// An "unexpected X" error that recognises the usual hand-editing mistakes.
    func unexpected(expecting: String) -> JSONSyntaxError {
        guard index < bytes.count else { return error("unexpected end of input: expected \(expecting)") }
        let b = bytes[index]
        if b == UInt8(ascii: "/"), index + 1 < bytes.count,
            bytes[index + 1] == UInt8(ascii: "/") || bytes[index + 1] == UInt8(ascii: "*")
        {
            return error("comments are not allowed in JSON")
        }
        if b == UInt8(ascii: "'") { return error("single quotes are not JSON: use double quotes") }
        if b == 0xE2, index + 2 < bytes.count, bytes[index + 1] == 0x80, (0x98...0x9D).contains(bytes[index + 2]) {
            return error(
                """
                typographic quote (U+\(hex(0x2000 + Int(bytes[index + 2] & 0x3F), width: 4))) where a straight \
                double quote '\"' belongs
                """
            )
        }
        return error("unexpected \(describeByte(at: index)): expected \(expecting)")
    }

    func describeByte(at i: Int) -> String {
        let b = bytes[i]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        if b < 0x80 { return "character U+\(hex(Int(b), width: 4))" }
        let (scalar, _) = decodeUTF8(at: i, limit: bytes.count)
        if let scalar { return "'\(Character(scalar))' (U+\(hex(Int(scalar.value), width: 4)))" }
        return "byte 0x\(hex(Int(b), width: 2)) (not UTF-8)"
    }

    func describeScalar(_ b: UInt8) -> String {
        b >= 0x21 && b < 0x7F ? String(Character(Unicode.Scalar(b))) : "U+\(hex(Int(b), width: 4))"
    }

    func error(_ message: String, kind: JSONSyntaxError.Kind = .syntax) -> JSONSyntaxError {
        var line = 1
        var lineStart = 0
        let end = min(index, bytes.count)
        for i in 0..<end where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        // Column in scalars: count the bytes that start a UTF-8 sequence.
        var column = 1
        for i in lineStart..<end where bytes[i] & 0xC0 != 0x80 { column += 1 }
        return JSONSyntaxError(kind: kind, message: message, path: path, offset: index, line: line, column: column)
    }
}

func hex(_ value: Int, width: Int) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}
