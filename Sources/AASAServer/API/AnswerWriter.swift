import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices

/// Writes an encoded answer as Foundation's `JSONEncoder` does with `.sortedKeys, .prettyPrinted,
/// .withoutEscapingSlashes` on Linux: two-space indents, `"key" : value`, keys in UTF-8 byte order,
/// an empty container as an opening and a closing line with a blank line between, numbers as
/// `description` writes them without a trailing `.0`.
enum AnswerWriter {
    static func write(_ node: AnswerNode, indent: Int, into out: inout [UInt8]) {
        switch node {
        case .scalar(let value): scalar(value, into: &out)
        case .box(let box):
            if let scalar = box.scalar {
                self.scalar(scalar, into: &out)
            } else if let array = box.array {
                out.append(UInt8(ascii: "["))
                for (i, item) in array.enumerated() {
                    out.append(contentsOf: i == 0 ? [0x0A] : [UInt8(ascii: ","), 0x0A])
                    spaces(indent + 1, into: &out)
                    write(item, indent: indent + 1, into: &out)
                }
                close(UInt8(ascii: "]"), empty: array.isEmpty, indent: indent, into: &out)
            } else {
                let members = box.members
                out.append(UInt8(ascii: "{"))
                for (i, member) in members.enumerated() {
                    out.append(contentsOf: i == 0 ? [0x0A] : [UInt8(ascii: ","), 0x0A])
                    spaces(indent + 1, into: &out)
                    JSONWriter.appendQuoted(member.key, into: &out)
                    out.append(contentsOf: " : ".utf8)
                    write(member.node, indent: indent + 1, into: &out)
                }
                close(UInt8(ascii: "}"), empty: members.isEmpty, indent: indent, into: &out)
            }
        }
    }

    private static func scalar(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let bool): out.append(contentsOf: (bool ? "true" : "false").utf8)
        case .number(let lexeme): out.append(contentsOf: lexeme.utf8)
        case .string(let string): JSONWriter.appendQuoted(string, into: &out)
        case .array, .object: out.append(contentsOf: JSONWriter(style: .compact).bytes(value))
        }
    }

    private static func close(_ bracket: UInt8, empty: Bool, indent: Int, into out: inout [UInt8]) {
        out.append(0x0A)
        if empty { out.append(0x0A) }
        spaces(indent, into: &out)
        out.append(bracket)
    }

    private static func spaces(_ level: Int, into out: inout [UInt8]) {
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * 2))
    }

    /// A floating-point number as Foundation writes it: its shortest round-trip `description`
    /// (`1e-07`, `1e+21`), an integral one without `.0`; JSON has no infinity or NaN, so those throw
    /// as Foundation's encoder does.
    static func lexeme<F: BinaryFloatingPoint & CustomStringConvertible>(_ value: F) throws -> String {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: [], debugDescription: "\(value) is not a valid JSON number"))
        }
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}
