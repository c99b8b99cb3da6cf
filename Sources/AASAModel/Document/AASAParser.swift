/// What reading a file produced: the document (when the bytes are a JSON object), the JSON as
/// written, and every structural finding. Validation adds the semantic findings.
public struct ParsedDocument: Sendable {
    public var document: AASADocument?
    public var source: JSONValue?
    public var diagnostics: [Diagnostic]
    /// The size of the input in bytes.
    public var byteCount: Int

    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
}

/// Reads AASA files in every form Apple accepts. Never traps: hostile input (deep nesting, huge
/// strings, bytes that are not UTF-8, non-object roots, signed binaries) becomes a diagnostic.
public enum AASAParser {
    public static func parse(_ bytes: [UInt8], limits: JSONParser.Limits = .init()) -> ParsedDocument {
        var result = ParsedDocument(document: nil, source: nil, diagnostics: [], byteCount: bytes.count)
        if looksLikeCMS(bytes) {
            result.diagnostics.append(
                .error(
                    .signedCMS, at: .root,
                    """
                    this is a signed (PKCS#7/CMS) binary file, not JSON: signing is obsolete since iOS 9; serve \
                    the plain JSON payload with Content-Type application/json
                    """
                ))
            return result
        }
        let output: JSONParser.Output
        do {
            output = try JSONParser.parse(bytes, limits: limits)
        } catch {
            let code: DiagnosticCode =
                switch error.kind {
                case .syntax: .invalidJSON
                case .encoding: .notUTF8
                case .depth: .tooDeep
                }
            result.diagnostics.append(.error(code, at: error.path, "invalid JSON at \(error)"))
            return result
        }
        result.source = output.value
        if output.hadByteOrderMark {
            result.diagnostics.append(
                .warning(
                    .byteOrderMark, at: .root,
                    "the file starts with a UTF-8 byte order mark; serve it without one"))
        }
        for duplicate in output.duplicateKeys {
            result.diagnostics.append(
                .warning(
                    .duplicateKey, at: duplicate.objectPath / duplicate.key,
                    """
                    key \(JSONWriter.quoted(duplicate.key)) appears more than once in this object: only the last \
                    one counts
                    """
                ))
        }
        var reader = DocumentReader()
        result.document = reader.read(output.value)
        result.diagnostics += reader.diagnostics
        return result
    }

    public static func parse(_ text: String) -> ParsedDocument {
        parse(Array(text.utf8))
    }

    /// A DER SEQUENCE header (0x30 then a length byte): how every signed AASA file begins.
    static func looksLikeCMS(_ bytes: [UInt8]) -> Bool {
        bytes.count > 2 && bytes[0] == 0x30
            && (bytes[1] == 0x80 || bytes[1] == 0x81 || bytes[1] == 0x82 || bytes[1] == 0x83)
    }
}

extension AASADocument {
    /// Reads a document from JSON text, throwing only when the bytes are not a JSON object.
    /// Structural problems are accepted as `AASAParser` accepts them (see `extra`, `malformed`).
    public init(json bytes: [UInt8]) throws(AASADocumentError) {
        let parsed = AASAParser.parse(bytes)
        guard let document = parsed.document else {
            throw AASADocumentError(diagnostics: parsed.diagnostics.filter { $0.severity == .error })
        }
        self = document
    }

    public init(json text: String) throws(AASADocumentError) {
        try self.init(json: Array(text.utf8))
    }
}

/// The bytes could not be read as a document at all.
public struct AASADocumentError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]
    public var description: String { diagnostics.map(\.description).joined(separator: "; ") }
}

extension AASAParser {
    /// Reads a document from an already-parsed JSON value (for documents embedded in other JSON).
    public static func read(_ value: JSONValue) -> ParsedDocument {
        var reader = DocumentReader()
        let document = reader.read(value)
        return ParsedDocument(
            document: document, source: value, diagnostics: reader.diagnostics,
            byteCount: JSONWriter().bytes(value).count)
    }
}
