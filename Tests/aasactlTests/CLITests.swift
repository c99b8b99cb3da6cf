import AASATestSupport
import Foundation
import Testing

/// Runs the built `aasactl` binary as pipelines do: exit codes, JSON shapes, standard input.
@Suite struct CLITests {
    static let binary: URL = {
        var dir = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
            dir.deleteLastPathComponent()
        }
        for candidate in [".build/debug/aasactl", ".build/release/aasactl"] {
            let url = dir.appendingPathComponent(candidate)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "aasactl")
    }()

    struct Run {
        var status: Int32
        var out: String
        var err: String
    }

    func run(_ args: [String], stdin: String = "") throws -> Run {
        let result = try Spawn.run(
            Self.binary.path, args, environment: ProcessInfo.processInfo.environment, stdin: Data(stdin.utf8))
        return Run(
            status: result.status, out: String(decoding: result.out, as: UTF8.self),
            err: String(decoding: result.err, as: UTF8.self))
    }

    func temp(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    let good =
        #"""
        {"applinks":{"details":[{"appIDs":["ABCDE12345.com.a"],"components":[{"/":"/x/*","exclude":true},\#
        {"/":"/*"}]}]}}
        """#

    /// `diff --android`: two assetlinks.json files compared per app; exit 1 when they differ.
    @Test func diffAndroidFiles() throws {
        let old =
            #"""
            [{"relation":["delegate_permission/common.handle_all_urls"],"target":{"namespace":"android_app",\#
            "package_name":"com.a.app","sha256_cert_fingerprints":["AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:\#
            AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB"]},"relation_extensions":\#
            {"delegate_permission/common.handle_all_urls":{"dynamic_app_link_components":[{"/":"/a/*"}]}}}]
            """#
        let new = old.replacingOccurrences(of: "/a/*", with: "/b/*")
        let changed = try run(["diff", "--android", try temp(old), try temp(new)])
        #expect(changed.status == 1)
        #expect(
            changed.out.contains("changed com.a.app") && changed.out.contains(#"+ rule {"/":"/b/*"}"#), "\(changed.out)"
        )
        // And what the device would do differently: a URL under /a/ no longer opens, one under /b/ does.
        let lines = changed.out.split(separator: "\n")
        #expect(lines.contains { $0.contains("URLs whose outcome on Android changes") })
        #expect(lines.contains { $0.contains("/a/") && $0.hasSuffix("com.a.app open -> no_match") }, "\(changed.out)")
        #expect(lines.contains { $0.contains("/b/") && $0.hasSuffix("com.a.app no_match -> open") }, "\(changed.out)")
        let same = try run(["diff", "--android", try temp(old), try temp(old)])
        #expect(same.status == 0 && same.out.contains("No change."))
    }

    @Test func lintExitCodes() throws {
        let ok = try run(["lint", try temp(good)])
        #expect(ok.status == 0)
        let bad = try run([
            "lint", "--json", try temp(#"{"applinks":{"details":[{"appIDs":["nope"],"components":[]}]}}"#),
        ])
        #expect(bad.status == 1)
        let json = try JSONSerialization.jsonObject(with: Data(bad.out.utf8)) as! [String: Any]
        #expect(json["valid"] as? Bool == false)
        let errors = json["errors"] as! [[String: String]]
        #expect(errors.first?["code"] == "E012")
        #expect(errors.first?["path"] == "/applinks/details/0/appIDs/0")
        #expect(try run(["lint"]).status == 64, "no file is a usage error")
        #expect(try run(["lint", "--bogus", "x"]).status == 64)
        let stdin = try run(["lint", "-"], stdin: good)
        #expect(stdin.status == 0)
    }

    /// The example manifest shipped in deploy/ci is valid and free of warnings; a broken one names
    /// the rule in the file's own terms.
    @Test func validateManifestOffline() throws {
        var root = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
            root.deleteLastPathComponent()
        }
        let example = try run(["validate", "-f", root.appendingPathComponent("deploy/ci/aasa.example.yaml").path])
        #expect(example.status == 0, "\(example.out)\(example.err)")
        #expect(!example.out.contains("warning"), "\(example.out)")
        let broken = try run(
            ["validate", "-f", "-"],
            stdin: """
                apps:
                  ABCDE12345.com.a:
                domains:
                  example.com:
                    ABCDE12345.com.a:
                      - "/": "/a/$(nope)"
                    nope.app: []
                """)
        #expect(broken.status == 1)
        #expect(broken.out.contains(#"domains["example.com"]["ABCDE12345.com.a"][0]["/"]"#), "\(broken.out)")
        #expect(broken.out.contains("not listed under apps"))
    }

    @Test func matchJSON() throws {
        let r = try run(["match", "--json", "--file", try temp(good), "https://e.com/x/1", "https://e.com/y"])
        #expect(r.status == 0)
        let rows = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as! [[String: Any]]
        #expect(rows.count == 2)
        #expect(rows[0]["appID"] is NSNull)
        #expect(rows[0]["excluded"] as? Bool == true)
        #expect(rows[0]["componentIndex"] is NSNull)
        #expect(rows[1]["appID"] as? String == "ABCDE12345.com.a")
        #expect(rows[1]["detailsIndex"] as? Int == 0)
        #expect(rows[1]["componentIndex"] as? Int == 1)
    }

    @Test func decideAnswersEveryLine() throws {
        let input = """
            {"id": 1, "aasa": \(good), "domain": "e.com", "appId": "ABCDE12345.com.a", "url": "https://e.com/y"}
            not json
            {"id": "three", "aasa": [], "appId": "ABCDE12345.com.a", "url": "https://e.com/y"}
            {"id": 4, "aasa": \(good), "domain": "e.com", "appId": "ABCDE12345.com.a", "url": "https://e.com/x/2"}
            """
        let r = try run(["decide"], stdin: input)
        #expect(r.status == 0)
        let lines = r.out.split(separator: "\n").map {
            try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        #expect(lines.count == 4)
        #expect(lines[0]["decision"] as? String == "match")
        #expect(lines[2]["id"] as? String == "three")
        #expect(lines[3]["decision"] as? String == "exclude")
        #expect(r.err.contains("line 2"))
    }

    @Test func renderAndDiff() throws {
        let file = try temp(#"{"applinks":{"apps":[],"details":{"ABCDE12345.com.a":{"paths":["/x"]}}}}"#)
        let r = try run(["render", file])
        #expect(r.out == #"{"applinks":{"apps":[],"details":[{"appID":"ABCDE12345.com.a","paths":["/x"]}]}}"# + "\n")
        let legacy = try run(["render", "--legacy", try temp(good)])
        #expect(legacy.out.contains(#""paths":["NOT /x/*","/*"]"#))
        let same = try run(["diff", file, try temp(r.out)])
        #expect(same.status == 0)
        let changed = try run(["diff", "--json", try temp(good), file])
        #expect(changed.status == 1)
        #expect(changed.out.contains(#""changed":true"#))
    }

    @Test func helpDocumentsExitCodes() throws {
        let r = try run(["lint", "--help"])
        #expect(r.status == 0)
        #expect(r.out.contains("Exit status"))
    }
}
