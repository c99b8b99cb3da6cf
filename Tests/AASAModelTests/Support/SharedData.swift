import AASAModel
import Foundation

/// The shared data beside the repository (`../shared`): Apple's recorded answers and the corpus.
/// Missing data fails the tests that need it; it is never skipped silently.
enum SharedData {
    static let root: URL = {
        if let override = ProcessInfo.processInfo.environment["AASA_SHARED_DIR"] {
            return URL(fileURLWithPath: override)
        }
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { break }
        }
        return url.deletingLastPathComponent().appendingPathComponent("shared")
    }()

    static func bytes(_ relative: String) throws -> [UInt8] {
        let url = root.appendingPathComponent(relative)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw MissingData(path: url.path)
        }
        return [UInt8](data)
    }

    static func json(_ relative: String) throws -> JSONValue {
        try JSONParser.parse(try bytes(relative)).value
    }

    struct MissingData: Error, CustomStringConvertible {
        var path: String
        var description: String { "shared test data not found at \(path) (set AASA_SHARED_DIR)" }
    }

    /// One per-app matching case in the `aasactl decide` shape.
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var feature: String
        var aasa: JSONValue
        var domain: String
        var appID: String
        var url: String
        var expect: Decision

        var description: String { name }
    }

    static func cases(_ file: String) throws -> [Case] {
        let values: [JSONValue]
        if file.hasSuffix(".jsonl") {
            values = try String(decoding: bytes(file), as: UTF8.self).split(separator: "\n").map {
                try JSONParser.parse(String($0)).value
            }
        } else {
            values = try json(file).objectValue?["matching"]?.arrayValue ?? []
        }
        return values.compactMap { v in
            guard let o = v.objectValue, let aasa = o["aasa"], let app = o["appId"]?.stringValue,
                let url = o["url"]?.stringValue, let expect = o["expect"]?.stringValue.flatMap(Decision.init(rawValue:))
            else { return nil }
            let name = o["name"]?.stringValue ?? o["ref"]?.stringValue ?? "?"
            return Case(
                name: name, feature: o["feature"]?.stringValue ?? o["source"]?.stringValue ?? "", aasa: aasa,
                domain: o["domain"]?.stringValue ?? "", appID: app, url: url, expect: expect)
        }
    }

    /// Corpus file names (the AASA files, not the metadata).
    static func corpusFiles() throws -> [String] {
        let dir = root.appendingPathComponent("corpus").path
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        return names.filter { $0.hasSuffix(".json") && $0 != "expected-lint.json" && $0 != "lint-reasons.json" }
            .sorted()
    }
}

extension AASADocument {
    /// Test shorthand: a document from JSON text that must parse.
    static func parse(_ text: String) -> AASADocument {
        guard let document = AASAParser.parse(text).document else { fatalError("not a document: \(text)") }
        return document
    }
}
