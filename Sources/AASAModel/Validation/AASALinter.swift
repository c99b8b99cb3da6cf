/// Everything `aasactl lint` and the API report about one file.
public struct LintReport: Sendable {
    public var document: AASADocument?
    public var diagnostics: [Diagnostic]

    public var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }
    public var warnings: [Diagnostic] { diagnostics.filter { $0.severity == .warning } }
    /// No errors (warnings allowed).
    public var isValid: Bool { !diagnostics.contains { $0.severity == .error } }
}

public enum AASALinter {
    /// Parses and validates `bytes` as served: the size limit applies to them as they are.
    public static func lint(_ bytes: [UInt8], options: AASAValidator.Options = .init()) -> LintReport {
        let parsed = AASAParser.parse(bytes)
        var diagnostics = parsed.diagnostics
        if let document = parsed.document {
            diagnostics += AASAValidator.validate(document, servedByteCount: bytes.count, options: options)
        }
        return LintReport(document: parsed.document, diagnostics: diagnostics)
    }
}
