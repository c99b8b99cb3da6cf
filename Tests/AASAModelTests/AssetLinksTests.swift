import Foundation
import PropertyBased
import Testing

@testable import AASAModel

/// Issue 16, the model: assetlinks.json read losslessly, validated with stable codes, rendered
/// canonically, and the Dynamic App Links matcher. Every matcher case names its source in
/// docs/assetlinks-spec.md.
@Suite struct AssetLinksTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/assetlinks")
    static let fingerprint =
        "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"

    static func errors(_ bytes: [UInt8]) -> [String] {
        Array(Set(AssetLinksValidator.validate(bytes).filter { $0.severity == .error }.map(\.code.rawValue))).sorted()
    }

    /// 32 real files from public repositories, each with its expected verdict (SOURCES.md).
    @Test func realFilesGetTheirVerdicts() throws {
        let verdicts =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: Self.fixtures.appendingPathComponent("verdicts.json"))) as! [String: [String]]
        #expect(verdicts.count >= 30)
        for (name, expected) in verdicts {
            let bytes = [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent(name)))
            #expect(Self.errors(bytes) == expected.sorted(), "\(name): \(AssetLinksValidator.validate(bytes))")
            // Lossless: what was read renders and reads back to the same statements.
            let document = try #require(AssetLinksDocument.parse(bytes).document)
            let again = try #require(AssetLinksDocument.parse(document.rendered()).document)
            #expect(again.statements.map(\.statement) == document.statements.map(\.statement), "\(name)")
        }
        #expect(verdicts.values.filter(\.isEmpty).count >= 20)
    }

    @Test func fingerprintsSayTheirFix() {
        #expect(AssetLinksValidator.fingerprintProblem(Self.fingerprint) == nil)
        let lower = AssetLinksValidator.fingerprintProblem(Self.fingerprint.lowercased())
        #expect(lower?.code == .fingerprintLowerCase && lower?.message.contains(Self.fingerprint) == true)
        let bare = AssetLinksValidator.fingerprintProblem(Self.fingerprint.replacingOccurrences(of: ":", with: ""))
        #expect(bare?.code == .fingerprintNoColons && bare?.message.contains(Self.fingerprint) == true)
        let sha1 = AssetLinksValidator.fingerprintProblem(
            Array(Self.fingerprint.split(separator: ":").prefix(20)).joined(separator: ":"))
        #expect(sha1?.code == .fingerprintSHA1)
        #expect(AssetLinksValidator.fingerprintProblem("YOUR_FINGERPRINT")?.code == .fingerprintMalformed)
    }

    /// One key listed twice, spelled two ways (as a hand-merged file does): a warning at the second,
    /// naming the first; the spelling itself is the error it always was.
    @Test func theSameKeyTwiceInAnySpellingIsWarned() {
        let bare = Self.fingerprint.replacingOccurrences(of: ":", with: "").lowercased()
        let json = #"""
            [{"relation":["delegate_permission/common.handle_all_urls"],"target":{"namespace":"android_app",\#
            "package_name":"com.example.app","sha256_cert_fingerprints":["\#(Self.fingerprint)","\#(bare)"]}}]
            """#
        let found = AssetLinksValidator.validate(Array(json.utf8))
        let twice = found.filter { $0.code == .fingerprintTwice }
        #expect(twice.count == 1 && twice.first?.severity == .warning)
        #expect(twice.first?.path.description == "/0/target/sha256_cert_fingerprints/1")
        #expect(twice.first?.message.contains("spelled differently") == true)
        #expect(found.contains { $0.code == .fingerprintNoColons })
        let once = AssetLinksValidator.validate(
            Array(
                json.replacingOccurrences(
                    of: bare,
                    with: Self.fingerprint
                        .replacingOccurrences(of: "14:", with: "15:")
                ).utf8))
        #expect(!once.contains { $0.code == .fingerprintTwice })
    }

    /// Play Console's App signing snippet, as it shows it, read for the app it was copied from.
    @Test func playConsolesSnippetGivesTheAppSigningKey() throws {
        let snippet = #"""
            [{
              "relation": ["delegate_permission/common.handle_all_urls"],
              "target": {
                "namespace": "android_app",
                "package_name": "com.example.app",
                "sha256_cert_fingerprints":
                ["\#(Self.fingerprint)"]
              }
            }]
            """#
        let root = try JSONParser.parse(snippet).value
        let read = PlaySigningSnippet.read(root, package: "com.example.app")
        #expect(read.keys == [Self.fingerprint] && read.problems.isEmpty)
        let other = PlaySigningSnippet.read(root, package: "com.example.lite")
        #expect(other.problems.map(\.pointer) == ["/0/target/package_name"] && other.problems.first?.rule == "package")
        #expect(PlaySigningSnippet.read(.object([:]), package: "com.example.app").problems.first?.rule == "type")
    }

    @Test func statementProblemsHaveCodes() {
        func codes(_ json: String) -> [String] { Self.errors(Array(json.utf8)) }
        let app =
            #"""
            {"namespace":"android_app","package_name":"com.example.app",\#
            "sha256_cert_fingerprints":["\#(Self.fingerprint)"]}
            """#
        #expect(codes(#"{"relation":[]}"#) == ["L002"])
        #expect(codes(#"[{"relation":["delegate_permission/common.handle_all_urls"],"target":\#(app)}]"#) == [])
        #expect(codes(#"[{"relation":[],"target":\#(app)}]"#) == ["L010"])
        let unknown = AssetLinksValidator.validate(
            Array(#"[{"relation":["delegate_permission/common.open_sesame"],"target":\#(app)}]"#.utf8))
        #expect(unknown.map(\.code) == [.unknownRelation] && unknown[0].severity == .warning)
        let twice = AssetLinksValidator.validate(
            Array(
                #"""
                [{"relation":["delegate_permission/common.handle_all_urls"],"target":\#(app)},\#
                {"relation":["delegate_permission/common.handle_all_urls"],"target":\#(app)}]
                """#
                .utf8))
        #expect(twice.map(\.code) == [.duplicateStatement])
        let web = AssetLinksValidator.validate(
            Array(
                #"""
                [{"relation":["delegate_permission/common.handle_all_urls"],"target":{"namespace":"web",\#
                "site":"https://example.com"}}]
                """#
                .utf8))
        #expect(web.map(\.code) == [.webTarget])
        let badRules =
            #"""
            [{"relation":["delegate_permission/common.handle_all_urls"],"target":\#(app),"relation_extensions":\#
            {"delegate_permission/common.handle_all_urls":{"dynamic_app_link_components":[{"/":""},{"?":"dl=1"},\#
            {"exclude":"yes"},{"path":"/a"}]}}}]
            """#
        #expect(codes(badRules) == ["L061"])
        #expect(AssetLinksValidator.validate(Array(badRules.utf8)).filter { $0.code == .componentSyntax }.count == 4)
        let reading = AssetLinksValidator.validate(
            Array(
                #"""
                [{"relation":["delegate_permission/common.handle_all_urls"],"target":\#(app),\#
                "relation_extensions":{"delegate_permission/common.handle_all_urls":\#
                {"dynamic_app_link_components":[{"/":"/p/*/details"}]}}}]
                """#
                .utf8))
        #expect(reading.map(\.code) == [.unverifiedReading])
        #expect(codes(String(repeating: " ", count: AssetLinksValidator.sizeLimit + 1) + "[]") == ["L070"])
    }

    static func matcher(_ components: String, package: String = "com.example.app") throws -> AndroidMatcher {
        let json =
            #"""
            [{"relation":["delegate_permission/common.handle_all_urls"],"target":{"namespace":"android_app",\#
            "package_name":"\#(package)","sha256_cert_fingerprints":["\#(fingerprint)"]},"relation_extensions":\#
            {"delegate_permission/common.handle_all_urls":{"dynamic_app_link_components":\#(components)}}}]
            """#
        return AndroidMatcher(try #require(AssetLinksDocument.parse(Array(json.utf8)).document))
    }

    /// The cases of docs/assetlinks-spec.md, "Matching", each with its source there.
    @Test func matcherFollowsGooglesExamples() throws {
        // [doc: order] the first matching rule decides; an exclude first hides later rules.
        let excludeFirst = try Self.matcher(#"[{"/":"*","exclude":true},{"/":"/path1"}]"#)
        #expect(excludeFirst.decide(packageName: "com.example.app", url: "https://example.com/path1") == .exclude)
        let allowFirst = try Self.matcher(#"[{"/":"/path1"},{"/":"*","exclude":true}]"#)
        #expect(allowFirst.decide(packageName: "com.example.app", url: "https://example.com/path1") == .open)
        #expect(allowFirst.decide(packageName: "com.example.app", url: "https://example.com/path2") == .exclude)
        // [doc: order] no rule matching: not opened.
        let two = try Self.matcher(#"[{"/":"/path1"},{"/":"/path2"}]"#)
        #expect(two.decide(packageName: "com.example.app", url: "https://example.com/path3") == .noMatch)
        // [doc: query] every dictionary entry must match a parameter; order and extra parameters do not matter.
        let query = try Self.matcher(#"[{"?":{"dl":"*","in_app":"true"}}]"#)
        #expect(query.decide(packageName: "com.example.app", url: "https://example.com/x?in_app=true&dl=abc") == .open)
        #expect(
            query.decide(packageName: "com.example.app", url: "https://example.com/x?lang=en&in_app=true&tz=pst&dl=abc")
                == .open)
        #expect(
            query.decide(packageName: "com.example.app", url: "https://example.com/x?lang=en&tz=pst&dl=abc") == .noMatch
        )
        // [doc: example file] path, fragment, and the catch-all exclude last.
        let example = try Self.matcher(
            ##"""
            [{"?":{"dl":"*"}},{"#":"app"},{"/":"/products/*"},{"/":"/shoes","?":{"in_app":"true"}},{"/":"*",\##
            "exclude":true}]
            """##
        )
        #expect(example.decide(packageName: "com.example.app", url: "https://example.com/products/42") == .open)
        #expect(example.decide(packageName: "com.example.app", url: "https://example.com/about#app") == .open)
        #expect(example.decide(packageName: "com.example.app", url: "https://example.com/shoes?in_app=true") == .open)
        #expect(example.decide(packageName: "com.example.app", url: "https://example.com/shoes") == .exclude)
        // [doc: wildcards] `?` one character, `?*` one or more.
        let wild = try Self.matcher(#"[{"/":"/id/???"},{"/":"/n/?*"}]"#)
        #expect(wild.decide(packageName: "com.example.app", url: "https://example.com/id/abc") == .open)
        #expect(wild.decide(packageName: "com.example.app", url: "https://example.com/id/abcd") == .noMatch)
        #expect(wild.decide(packageName: "com.example.app", url: "https://example.com/n/") == .noMatch)
        #expect(wild.decide(packageName: "com.example.app", url: "https://example.com/n/x") == .open)
        // [reading: lazy star] `*` stops at the first following character, no backtracking.
        let lazy = try Self.matcher(#"[{"/":"/p/*/details"}]"#)
        #expect(lazy.decide(packageName: "com.example.app", url: "https://example.com/p/42/details") == .open)
        #expect(lazy.decide(packageName: "com.example.app", url: "https://example.com/p/4/2/details") == .noMatch)
        // [reading: decoded] the path is compared decoded; case-sensitively.
        let decoded = try Self.matcher(#"[{"/":"/café/*"},{"/":"/Shop"}]"#)
        #expect(decoded.decide(packageName: "com.example.app", url: "https://example.com/caf%C3%A9/1") == .open)
        #expect(decoded.decide(packageName: "com.example.app", url: "https://example.com/shop") == .noMatch)
        // [doc: compatibility] a statement without dynamic rules leaves the manifest to decide.
        let plain = AndroidMatcher(
            AssetLinksDocument(statements: [
                .init(
                    relations: [AssetLinksDocument.handleAllURLs],
                    target: .androidApp(packageName: "com.example.app", fingerprints: [Self.fingerprint]))
            ]))
        #expect(plain.decide(packageName: "com.example.app", url: "https://example.com/anything") == .manifest)
    }

    /// Render → parse gives the same statements, for generated documents.
    @Test func renderThenParseRoundTrips() async {
        await propertyCheck(count: 200, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var rng = SplitMix(seed)
            let statements = (0..<Int.random(in: 1...4, using: &rng)).map { n -> AssetLinksDocument.Statement in
                let rules: [JSONValue]? =
                    Bool.random(using: &rng)
                    ? nil
                    : (0..<Int.random(in: 1...3, using: &rng)).map { k in
                        .object(["/": .string("/p\(n)/\(k)/*"), "exclude": .bool(Bool.random(using: &rng))])
                    }
                return .init(
                    relations: Bool.random(using: &rng)
                        ? [AssetLinksDocument.handleAllURLs]
                        : [AssetLinksDocument.handleAllURLs, AssetLinksDocument.getLoginCreds],
                    target: .androidApp(packageName: "com.example.app\(n)", fingerprints: [Self.fingerprint]),
                    dynamicComponents: rules)
            }
            let document = AssetLinksDocument(statements: statements)
            let read = AssetLinksDocument.parse(document.rendered()).document
            #expect(read?.statements.map(\.statement) == statements)
            #expect(AssetLinksValidator.validate(document.rendered()).filter { $0.severity == .error }.isEmpty)
        }
    }

    /// The diff per app: added, removed, changed (fingerprints, relations, rules), reordered.
    @Test func diffSaysWhatChangedPerApp() throws {
        let key = (0..<32).map { _ in "AB" }.joined(separator: ":")
        let other = (0..<32).map { _ in "CD" }.joined(separator: ":")
        func app(_ package: String, _ fingerprints: [String], _ rules: [JSONValue]?) -> AssetLinksDocument.Statement {
            .init(
                relations: [AssetLinksDocument.handleAllURLs],
                target: .androidApp(packageName: package, fingerprints: fingerprints),
                dynamicComponents: rules)
        }
        let a: JSONValue = .object(["/": .string("/a/*")])
        let b: JSONValue = .object(["/": .string("/b/*")])
        let old = AssetLinksDocument(statements: [
            app("com.x.keep", [key], [a, b]), app("com.x.gone", [key], [a]), app("com.x.keys", [key], [a]),
        ])
        let new = AssetLinksDocument(statements: [
            app("com.x.keep", [key], [b, a]), app("com.x.keys", [other], [a, b]), app("com.x.new", [key], nil),
        ])
        let diff = AssetLinksDiff(from: old, to: new)
        #expect(diff.changes.map(\.target) == ["com.x.keep", "com.x.keys", "com.x.new", "com.x.gone"])
        #expect(diff.changes[0].rulesReordered && diff.changes[0].rulesAdded.isEmpty)
        #expect(
            diff.changes[1].fingerprintsAdded == [other] && diff.changes[1].fingerprintsRemoved == [key]
                && diff.changes[1].rulesAdded == [b])
        #expect(diff.changes[2].kind == .added && diff.changes[3].kind == .removed)
        #expect(AssetLinksDiff(from: old, to: old).isEmpty)
    }
}
