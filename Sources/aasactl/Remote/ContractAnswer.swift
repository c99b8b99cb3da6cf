import AASAAPI
import AASAModel
import Foundation
import OpenAPIRuntime

/// The API's answers read through the contract's own types (AASAAPI, generated from openapi.yaml),
/// not by string keys: a field the contract renames or retypes fails aasactl's build, not a
/// user's table. Dates are RFC 3339 without fractions, as the server's transcoder writes them.
enum ContractAnswer {
    static func decode<Answer: Decodable>(_ type: Answer.Type, from bytes: [UInt8]) throws -> Answer {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = ISO8601DateFormatter().date(from: text) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "not an RFC 3339 date-time: \(text)"))
            }
            return date
        }
        do { return try decoder.decode(Answer.self, from: Data(bytes)) } catch {
            throw CLIFailure("the server's answer is not the contract's \(Answer.self): \(error)")
        }
    }

    /// A value in a table cell, as `Table.text` prints JSON: absent `-`, empty `""`, a list
    /// comma-separated (`-` when empty), a flag yes or no.
    static func cell(_ text: String?) -> String {
        guard let text else { return "-" }
        return text.isEmpty ? "\"\"" : text
    }

    static func cell(_ number: (some BinaryInteger)?) -> String { number.map { String($0) } ?? "-" }

    static func cell(_ list: [String]?) -> String {
        guard let list, !list.isEmpty else { return "-" }
        return list.map { cell($0) }.joined(separator: ",")
    }

    static func cell(_ flag: Bool?) -> String { flag.map { $0 ? "yes" : "no" } ?? "-" }

    /// A free-form part of an answer (a diff) as AASAModel's JSON, for the printers that read it.
    static func json(_ container: some Encodable) -> JSONValue? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let bytes = try? encoder.encode(container) else { return nil }
        return try? JSONParser.parse([UInt8](bytes)).value
    }

    static func cell(_ date: Date?) -> String { date.map(text) ?? "-" }

    /// A number as JSON writes it: a whole one without a fraction (`12`, not `12.0`).
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// An object of the answer (a domain's defaults, its variables, an app's key labels), as JSON.
    static func cell(object: some Encodable) -> String { json(object).map { JSONWriter().string($0) } ?? "-" }

    /// A date as the server wrote it.
    static func text(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
}

extension APIResponse {
    func decode<Answer: Decodable>(_ type: Answer.Type) throws -> Answer {
        try ContractAnswer.decode(type, from: body)
    }
}

extension RemoteOptions {
    /// `show` for an answer read as the contract's type: JSON output stays the server's bytes.
    func show<Answer: Decodable>(_ response: APIResponse, as type: Answer.Type, _ table: (Answer) -> [String]) throws {
        try show(response, try response.decode(type), table)
    }

    /// `show` for an answer the caller has read already (for its exit status too), read only when
    /// a table is printed.
    func show<Answer>(
        _ response: APIResponse, _ answer: @autoclosure () throws -> Answer, _ table: (Answer) -> [String]
    )
        throws
    {
        guard output == .table else { return try show(response) { _ in [] } }
        guard !quiet, !response.body.isEmpty else { return }
        table(try answer()).forEach(CLIOutput.print)
    }
}

extension Table {
    /// Typed items as aligned columns: each column a header and the cell it prints of an item.
    static func rows<Item>(_ items: [Item], _ columns: [(header: String, cell: (Item) -> String)])
        -> [String]
    {
        align([columns.map(\.header)] + items.map { item in columns.map { $0.cell(item) } })
    }

    /// Findings (`code path message`) under a heading, or nothing: `findings(_:heading:)` for the
    /// contract's type.
    static func findings(_ findings: [Components.Schemas.Finding]?, heading: String) -> [String] {
        guard let findings, !findings.isEmpty else { return [] }
        // A finding about the whole document has no pointer: "K001: …", not "K001 : …".
        return [heading] + findings.map { "  \($0.code)\($0.path.isEmpty ? "" : " " + $0.path): \($0.message)" }
    }

    /// One typed item as `Label: value` lines.
    static func fields<Item>(_ item: Item, _ fields: [(label: String, cell: (Item) -> String)]) -> [String] {
        align(fields.map { ["\($0.label):", $0.cell(item)] })
    }
}
