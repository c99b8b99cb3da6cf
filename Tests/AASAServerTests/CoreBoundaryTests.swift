import AASATestSupport
import Foundation
import Testing

/// Issue 40: the core knows no HTTP server. AASACore's target declares none of the edge's modules,
/// `scripts/test` builds with `--explicit-target-dependency-import-check=error` (so an import of an
/// undeclared module fails the build), and this test reads what the target declares and what each
/// of its files imports, so the boundary holds in any build.
@Suite struct CoreBoundaryTests {
    static let forbidden = [
        "AASAAPI", "AASAServer", "Hummingbird", "HummingbirdCore", "HummingbirdTesting", "HTTPTypes",
        "NIOHTTPTypes", "OpenAPIRuntime", "OpenAPIHummingbird", "Mustache", "Prometheus",
    ]

    @Test func theCoreImportsNoHTTPServerModule() throws {
        let root = TestDatabase.repositoryRoot + "/Sources/AASACore"
        let files = try FileManager.default.subpathsOfDirectory(atPath: root).filter {
            $0.hasSuffix(".swift")
        }
        #expect(files.count > 50, "the core's files were found (\(files.count))")
        for file in files {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            for line in text.split(separator: "\n") where line.contains("import ") {
                let words = line.split(separator: " ")
                guard let i = words.firstIndex(of: "import"), i + 1 < words.count else { continue }
                let module = String(words[i + 1])
                #expect(!Self.forbidden.contains(module), "AASACore/\(file) imports \(module)")
            }
        }
    }

    @Test func theCoreTargetDeclaresNoHTTPServerModule() throws {
        let manifest = try String(contentsOfFile: TestDatabase.repositoryRoot + "/Package.swift", encoding: .utf8)
        let start = try #require(manifest.range(of: "name: \"AASACore\""))
        let end = try #require(manifest.range(of: "swiftSettings", range: start.upperBound..<manifest.endIndex))
        let declaration = manifest[start.upperBound..<end.lowerBound]
        for module in Self.forbidden {
            #expect(!declaration.contains("\"\(module)\""), "AASACore depends on \(module)")
        }
        #expect(declaration.contains("\"AASAStore\""), "the declaration was read")
    }
}
