import AASATestSupport
import Foundation
import Testing

/// Issues 40 and 51: the core is a chain of four targets, and neither it nor any of its layers knows
/// an HTTP server. `Package.swift` declares each layer's dependencies, SwiftPM refuses a cycle among
/// them, and `scripts/test` builds with `--explicit-target-dependency-import-check=error`, so an
/// import of an undeclared module (one up the chain) fails the build. This test names the allowed
/// edges and reads both the declarations and every file's imports, so the chain holds in any build.
@Suite struct CoreBoundaryTests {
    /// Each layer of the core and the project's own modules it may import, lowest first.
    static let allowedEdges: KeyValuePairs<String, Set<String>> = [
        "AASAKernel": ["AASAModel", "AASAStore"],
        "AASAOutbound": ["AASAKernel", "AASAModel", "AASAStore"],
        "AASARules": ["AASAKernel", "AASAModel", "AASAStore"],
        "AASAServices": ["AASAKernel", "AASAOutbound", "AASARules", "AASAModel", "AASAStore", "AASASignedFile"],
    ]

    /// The project's modules, whichever way an edge to them would run.
    static let ownModules: Set<String> = [
        "AASAModel", "AASAStore", "AASASignedFile", "AASAKernel", "AASAOutbound", "AASARules", "AASAServices",
        "AASAAPI", "AASAServer",
    ]

    /// The HTTP server's modules: none of the core's layers may import one.
    static let forbidden: Set<String> = [
        "AASAAPI", "AASAServer", "Hummingbird", "HummingbirdCore", "HummingbirdTesting", "HTTPTypes",
        "NIOHTTPTypes", "OpenAPIRuntime", "OpenAPIHummingbird", "Mustache", "Prometheus",
    ]

    /// The rules judge and never call another server.
    static let forbiddenInRules: Set<String> = ["AsyncHTTPClient", "NIOSSL", "NIOHTTP1", "JWTKit"]

    @Test(arguments: allowedEdges.map(\.key))
    func eachFileImportsOnlyWhatItsLayerMay(layer: String) throws {
        let allowed = try #require(Self.allowedEdges.first { $0.key == layer }?.value)
        let root = TestDatabase.repositoryRoot + "/Sources/" + layer
        let files = try FileManager.default.subpathsOfDirectory(atPath: root).filter { $0.hasSuffix(".swift") }
        #expect(files.count >= 10, "\(layer)'s files were found (\(files.count))")
        for file in files {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            for module in Self.imports(text) {
                #expect(!Self.forbidden.contains(module), "\(layer)/\(file) imports \(module)")
                if layer == "AASARules" {
                    #expect(!Self.forbiddenInRules.contains(module), "\(layer)/\(file) imports \(module)")
                }
                if Self.ownModules.contains(module) {
                    #expect(allowed.contains(module), "\(layer)/\(file) imports \(module), up or across the chain")
                }
            }
        }
    }

    @Test(arguments: allowedEdges.map(\.key))
    func eachLayerDeclaresOnlyItsAllowedEdges(layer: String) throws {
        let allowed = try #require(Self.allowedEdges.first { $0.key == layer }?.value)
        let declaration = try Self.declaration(of: layer)
        let declared = Set(Self.ownModules.filter { declaration.contains("\"\($0)\"") })
        #expect(declared == allowed, "\(layer) declares \(declared.sorted()), the chain allows \(allowed.sorted())")
        for module in Self.forbidden {
            #expect(!declaration.contains("\"\(module)\""), "\(layer) depends on \(module)")
        }
        if layer == "AASARules" {
            for module in Self.forbiddenInRules {
                #expect(!declaration.contains("\"\(module)\""), "the rules depend on \(module)")
            }
        }
    }

    /// `AASACore` is gone: its four layers replaced it, and nothing may bring the monolith back.
    @Test func theMonolithIsGone() throws {
        let manifest = try String(contentsOfFile: TestDatabase.repositoryRoot + "/Package.swift", encoding: .utf8)
        #expect(!manifest.contains("name: \"AASACore\""))
        #expect(!FileManager.default.fileExists(atPath: TestDatabase.repositoryRoot + "/Sources/AASACore"))
    }

    static func imports(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard let i = words.firstIndex(of: "import"), i + 1 < words.count,
                words[..<i].allSatisfy({ $0.hasPrefix("@") })
            else { return nil }
            return String(words[i + 1])
        }
    }

    /// The text of a target's declaration in `Package.swift`, from its name to its settings.
    static func declaration(of target: String) throws -> Substring {
        let manifest = try String(contentsOfFile: TestDatabase.repositoryRoot + "/Package.swift", encoding: .utf8)
        let start = try #require(manifest.range(of: "name: \"\(target)\""))
        let end = try #require(manifest.range(of: "swiftSettings", range: start.upperBound..<manifest.endIndex))
        return manifest[start.upperBound..<end.lowerBound]
    }
}
