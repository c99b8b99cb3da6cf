import AASAModel
import AASASignedFile
import AASATestSupport
import Foundation
import HTTPTypes
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServer
@testable import AASAServices

/// `POST /v1/imports` (issue 20): a domain's existing AASA file moved into teams, apps, grants and
/// rules, with the proof that the registry serves what the file said. Against PostgreSQL.
@Suite(.serialized) struct ImportTests {
    /// Legacy paths with NOT, appID and appIDs, an entry's defaults, a dictionary-free array, and
    /// the three other services, over two teams.
    static let mixed = #"""
        {"applinks":{"apps":[],"details":[
          {"appID":"ABCDE12345.com.shop.app","paths":["NOT /shop/admin/*","/shop/*"]},
          {"appIDs":["FGHIJ67890.com.news.app","FGHIJ67890.com.news.beta"],
           "defaults":{"caseSensitive":false},
           "components":[{"/":"/news/*","?":{"preview":"?*"},"exclude":true},{"/":"/news/*"}]}
        ]},
        "webcredentials":{"apps":["ABCDE12345.com.shop.app"]},
        "appclips":{"apps":["ABCDE12345.com.shop.app.Clip"]}}
        """#

    static let map = ["ABCDE12345": "shop", "FGHIJ67890": "news"]

    static func body(
        _ host: String, _ aasa: String, map: [String: String] = map, apply: Bool = false, publish: Bool = false,
        webRoots: [String]? = nil
    ) -> [String: Any] {
        var body: [String: Any] = ["host": host, "aasa": aasa, "teamMap": map, "apply": apply]
        if publish {
            body["publish"] = true
            body["reason"] = "moved in"
        }
        if let webRoots { body["webRoots"] = webRoots }
        return body
    }

    static func auditCount(_ w: TestWorld) async throws -> Int {
        try await ManifestTests.auditCount(w)
    }

    @Test func planThenApplyThenPublishThenNoOp() async throws {
        try await TestWorld.run { w in
            try await w.createTeam("shop")
            try await w.createTeam("news")
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: root) }
            let before = try await Self.auditCount(w)

            // The plan: what would be made, and the proof; nothing is written.
            let plan = try await w.call(
                .post, "/v1/imports", token: w.adminToken,
                json: Self.body("example.com", Self.mixed, webRoots: [root.path]))
            #expect(plan.status == 200, "\(plan.text)")
            #expect(plan.object["applied"] as? Bool == false && plan.object["createsDomain"] as? Bool == true)
            let proof = plan.object["proof"] as? [String: Any] ?? [:]
            #expect(proof["holds"] as? Bool == true, "\(plan.text)")
            #expect((proof["urlsChecked"] as? Int ?? 0) > 10)
            let apps = plan.object["apps"] as? [[String: Any]] ?? []
            #expect(
                apps.map { $0["appID"] as? String ?? "" } == [
                    "ABCDE12345.com.shop.app", "FGHIJ67890.com.news.app", "FGHIJ67890.com.news.beta",
                    "ABCDE12345.com.shop.app.Clip",
                ])
            let shopRules = apps.first?["rules"] as? [[String: Any]] ?? []
            #expect(shopRules.first?["exclude"] as? Bool == true && shopRules.first?["/"] as? String == "/shop/admin/*")
            let grants = plan.object["grants"] as? [[String: Any]] ?? []
            let prefixes = grants.map { grant in
                (
                    grant["team"] as? String ?? "",
                    (grant["pathPrefixes"] as? [[String: Any]] ?? []).map { $0["path"] as? String ?? "" }
                )
            }
            #expect(prefixes.map(\.0) == ["shop", "news"] && prefixes.map(\.1) == [["/shop"], ["/news"]])
            #expect(try await w.call(.get, "/v1/domains/example.com", token: w.adminToken).status == 404)
            #expect(try await Self.auditCount(w) == before, "a plan writes nothing")

            // Apply and publish: the served file means what the original meant.
            let applied = try await w.call(
                .post, "/v1/imports", token: w.adminToken,
                json: Self.body("example.com", Self.mixed, apply: true, publish: true, webRoots: [root.path]))
            #expect(applied.status == 200, "\(applied.text)")
            #expect(applied.object["changed"] as? Bool == true)
            #expect((applied.object["publish"] as? [String: Any])?["created"] as? Bool == true)
            let served = try #require(
                FileManager.default.contents(atPath: root.path + "/.well-known/apple-app-site-association"))
            let original = try #require(AASAParser.parse(Self.mixed).document)
            let published = try #require(AASAParser.parse([UInt8](served)).document)
            #expect(ImportProof(original: original, rendered: published, host: "example.com").holds)
            let audit = try await w.call(.get, "/v1/audit?domain=example.com&limit=500", token: w.adminToken)
            let actions = (audit.object["items"] as? [[String: Any]] ?? []).compactMap { $0["action"] as? String }
            #expect(actions.contains("import.apply") && actions.contains("import.rules.replace"), "\(actions)")

            // The same file again: nothing to do.
            let again = try await w.call(
                .post, "/v1/imports", token: w.adminToken, json: Self.body("example.com", Self.mixed, apply: true))
            #expect(again.status == 200, "\(again.text)")
            #expect(again.object["changed"] as? Bool == false, "\(again.text)")
        }
    }

    /// The file fetched from the origin, and from Apple's CDN, through the probe tests' TLS
    /// stand-ins (a throwaway CA aasad is told to trust); a 404 is 422 naming `/source`.
    @Test func fromTheOriginAndFromAppleCDN() async throws {
        // Off the concurrency pool: making the CA and starting the origin block on child processes.
        let origin = try await offPool { try ProbeTests.Origin() }
        try origin.serve("good.test", Array(Self.mixed.utf8))
        try origin.serve("cdn.test", Array(Self.mixed.utf8), cdn: true)
        try await TestWorld.run(configure: origin.configure) { w in
            try await w.createTeam("shop")
            try await w.createTeam("news")
            for (host, source) in [("good.test", "origin"), ("cdn.test", "cdn")] {
                var body: [String: Any] = ["host": host, "source": source, "teamMap": Self.map, "apply": true]
                let reply = try await w.call(.post, "/v1/imports", token: w.adminToken, json: body)
                #expect(reply.status == 200, "\(source): \(reply.text)")
                #expect(reply.object["changed"] as? Bool == true)
                #expect((reply.object["proof"] as? [String: Any])?["holds"] as? Bool == true)
                body["host"] = "fresh.test"
                let missing = try await w.call(.post, "/v1/imports", token: w.adminToken, json: body)
                #expect(missing.status == 422 && missing.problemFields == ["/source"], "\(missing.text)")
            }
        }
    }

    /// The iOS 8 form: a corpus file signed in the test with `openssl cms -sign`; the signed JSON is
    /// imported and the signer named (not trusted).
    @Test func aCMSSignedFileImportsItsPayload() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cms-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(Self.mixed.utf8).write(to: URL(fileURLWithPath: dir + "/aasa.json"))
        let script = """
            set -e
            cd \(dir)
            openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 30 \\
              -subj "/CN=Example Shop Signing/O=Example" 2>/dev/null
            openssl cms -sign -in aasa.json -signer cert.pem -inkey key.pem -nodetach -binary -outform DER \\
              -out aasa.p7
            """
        let status = try await offPool {
            try Spawn.run("/bin/bash", ["-c", script], environment: ProcessInfo.processInfo.environment).status
        }
        try #require(status == 0)
        let signed = try Data(contentsOf: URL(fileURLWithPath: dir + "/aasa.p7"))
        try await TestWorld.run { w in
            try await w.createTeam("shop")
            try await w.createTeam("news")
            let reply = try await w.call(
                .post, "/v1/imports", token: w.adminToken,
                json: ["host": "example.com", "aasaBase64": signed.base64EncodedString(), "teamMap": Self.map])
            #expect(reply.status == 200, "\(reply.text)")
            let signer = reply.object["signer"] as? [String: Any] ?? [:]
            #expect((signer["subject"] as? String)?.contains("CN=Example Shop Signing") == true, "\(reply.text)")
            #expect((reply.object["proof"] as? [String: Any])?["holds"] as? Bool == true)
            #expect((reply.object["apps"] as? [Any])?.count == 4)
        }
    }

    /// Issue 40: an import is committed first; its publish comes after, through the one publish
    /// step every writer uses: a domain set to auto-publish is published after an import that
    /// changed it (the import ignored the setting before), and one that is not is left alone.
    @Test func anImportPublishesAfterItsCommitAsEveryWriterDoes() async throws {
        try await TestWorld.run(live: true) { w in
            try await w.createTeam("shop")
            try await w.createTeam("news")
            let created = try await w.call(
                .post, "/v1/domains", token: w.adminToken, json: ["host": "example.com", "autoPublish": true])
            try #require(created.status == 201, "\(created.text)")
            let applied = try await w.call(
                .post, "/v1/imports", token: w.adminToken, json: Self.body("example.com", Self.mixed, apply: true))
            #expect(applied.status == 200, "\(applied.text)")
            let publish = try #require(applied.object["publish"] as? [String: Any], "\(applied.text)")
            #expect((publish["revision"] as? [String: Any])?["reason"] as? String == "auto-publish after import")
            #expect(applied.object["publishError"] == nil)
            let served = try await w.call(
                .get, "/.well-known/apple-app-site-association", headers: ["Host": "example.com"])
            #expect(served.status == 200 && served.text.contains("/news/*"), "\(served.text)")

            // A domain that does not auto-publish, and no publish asked: the import publishes nothing.
            #expect(
                try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "b.example"]).status == 201)
            let applyOnly = try await w.call(
                .post, "/v1/imports", token: w.adminToken, json: Self.body("b.example", Self.mixed, apply: true))
            #expect(applyOnly.status == 200 && applyOnly.object["publish"] == nil, "\(applyOnly.text)")
        }
    }

    /// Issue 41, finding 3: ten kilobytes of nested indefinite lengths stopped aasad through this
    /// very request; now it is a refusal naming the field, and the server goes on.
    @Test func aDeeplyNestedSignedFileIsRefusedNotACrash() async throws {
        let deep = Data([[UInt8]](repeating: [0x30, 0x80], count: 5_000).joined())
        try await TestWorld.run { w in
            try await w.createTeam("shop")
            let reply = try await w.call(
                .post, "/v1/imports", token: w.adminToken,
                json: ["host": "example.com", "aasaBase64": deep.base64EncodedString(), "teamMap": Self.map])
            #expect(reply.status == 422 || reply.status == 400, "\(reply.text)")
            #expect(reply.problemFields.contains { $0.hasPrefix("/aasa") }, "\(reply.text)")
            #expect(try await w.call(.get, "/health/live").status == 200)
        }
    }

    @Test func badInputChangesNothingAndNamesTheField() async throws {
        // A body large enough for the 200 KB file to reach the import's own check.
        let config: @Sendable (inout AppConfig) -> Void = { $0.maxBodyBytes = 1 << 20 }
        try await TestWorld.run(configure: config) { w in
            try await w.createTeam("shop")
            try await w.createTeam("news")
            let before = try await Self.auditCount(w)
            let cases: [(String, [String: Any], String)] = [
                ("garbage", Self.body("example.com", "\u{1}\u{2}not json"), "/aasa"),
                ("html", Self.body("example.com", "<!doctype html><html><body>hi</body></html>"), "/aasa"),
                (
                    "too large",
                    Self.body(
                        "example.com",
                        #"{"applinks":{"details":[]},"x":""# + String(repeating: "a", count: 200_000) + #""}"#),
                    "/aasa"
                ),
                (
                    "unknown team",
                    Self.body("example.com", Self.mixed, map: ["ABCDE12345": "shop", "FGHIJ67890": "nobody"]),
                    "/teamMap"
                ),
                ("empty map", Self.body("example.com", Self.mixed, map: [:]), "/teamMap"),
                (
                    "unclaimed app", Self.body("example.com", Self.mixed, map: ["ABCDE12345": "shop"]),
                    "/aasa/applinks/details/1/appIDs/0"
                ),
            ]
            for (name, body, field) in cases {
                let reply = try await w.call(.post, "/v1/imports", token: w.adminToken, json: body)
                #expect(reply.status == 422, "\(name): \(reply.text)")
                #expect(reply.problemFields.contains { $0.hasPrefix(field) }, "\(name): \(reply.text)")
            }
            // Two teams claiming one prefix: JSON can say it (a key twice), and the decoder would keep one.
            let aasa = String(
                decoding: try JSONSerialization.data(withJSONObject: Self.mixed, options: .fragmentsAllowed),
                as: UTF8.self)
            let twice = try await w.call(
                .post, "/v1/imports", token: w.adminToken,
                raw: #"{"host":"example.com","aasa":\#(aasa),"teamMap":{"ABCDE12345":"shop","FGHIJ67890":"news","#
                    + #""ABCDE12345":"news"}}"#)
            #expect(twice.status == 422, "\(twice.text)")
            #expect(twice.problemFields == ["/teamMap/ABCDE12345"] && twice.problemRules == ["duplicate-key"])
            let team = try await w.teamToken("shop", scopes: ["write"]).secret
            #expect(
                try await w.call(.post, "/v1/imports", token: team, json: Self.body("example.com", Self.mixed)).status
                    == 403)
            #expect(try await w.call(.get, "/v1/domains/example.com", token: w.adminToken).status == 404)
            #expect(try await Self.auditCount(w) == before + 1, "only the team token's creation was audited")
        }
    }

    /// Every real file of ../shared/corpus through the same steps: a team per Apple Team ID, the
    /// import applied and published, the published file proved against the original, and a second
    /// import that changes nothing. A file refused names why; the counts go in the issue's note.
    @Test func everyCorpusFileImportsOrSaysWhy() async throws {
        let directory = Self.sharedDirectory.appendingPathComponent("corpus")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") && $0 != "expected-lint.json" && $0 != "lint-reasons.json" }.sorted()
        #expect(names.count == 77)
        let expected =
            try JSONParser.parse(
                [UInt8](try Data(contentsOf: directory.appendingPathComponent("expected-lint.json")))
            ).value.objectValue ?? [:]
        let outcomes = CorpusOutcomes()
        // Files whose apps no other file of the group names share one registry (a fresh registry
        // per file costs a database clone each); a file naming an app already seen starts a new one.
        var groups: [[(index: Int, name: String, file: [String: String], map: [String: String])]] = [[]]
        var seen = Set<String>()
        for (i, name) in names.enumerated() {
            let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
            // The CMS-signed file goes as its bytes in base64, the others as text.
            let text = String(validating: bytes, as: UTF8.self)
            let file: [String: String] =
                text.map { ["aasa": $0] } ?? ["aasaBase64": Data(bytes).base64EncodedString()]
            let json = try SignedFile.looksSigned(bytes) ? SignedFile.unwrap(bytes).content : bytes
            // A team per Apple Team ID of the file.
            var map: [String: String] = [:]
            var ids: [String] = []
            if let document = AASAParser.parse(json).document {
                ids =
                    (document.applinks?.details ?? []).flatMap(\.effectiveAppIDs)
                    + (document.webcredentials?.apps ?? []) + (document.appclips?.apps ?? [])
                    + (document.activitycontinuation?.apps ?? [])
                for id in ids {
                    let prefix = String(id.prefix { $0 != "." })
                    map[prefix] = "t" + prefix.lowercased().filter { $0.isLetter || $0.isNumber }.prefix(20)
                }
            }
            if map.isEmpty { map["NOBODY0000"] = "nobody" }
            if !seen.isDisjoint(with: ids) {
                groups.append([])
                seen = []
            }
            seen.formUnion(ids)
            groups[groups.count - 1].append((i, name, file, map))
        }
        for group in groups where !group.isEmpty {
            try await TestWorld.run { w in
                for team in Set(group.flatMap(\.map.values)) { try await w.createTeam(team) }
                for (i, name, file, teamMap) in group {
                    try await Self.importCorpusFile(
                        w, name: name, file: file, host: "c\(i).example.com", map: teamMap,
                        lintsClean: expected[name]?.boolValue == true, outcomes: outcomes)
                }
            }
        }
        let (imported, refused) = outcomes.counts
        print("corpus import: \(imported.count) imported, \(refused.count) refused")
        for (name, reason) in refused.sorted(by: { $0.key < $1.key }) { print("  refused \(name): \(reason)") }
        #expect(imported.count + refused.count == names.count)
        // The linter reads plain JSON, so it refuses the CMS-signed file; the import takes the JSON out.
        let signed = "artsy--force--public-root-signed-cms.json"
        for name in imported where name != signed {
            #expect(expected[name]?.boolValue == true, "\(name) lints with errors yet imported")
        }
        #expect(imported.contains(signed))
        // A clean file is refused only where its Team IDs, mapped to one team each here, claim the
        // same paths: no grant split works (the fix is one team for both, which the answer says).
        let interleaving = refused.filter { $0.value.contains("interleaving") }
        #expect(interleaving.keys.sorted() == ["googlechromelabs--web-based-payment-app-example--public-root.json"])
        #expect(imported.count == expected.members.filter { $0.value.boolValue == true }.count + 1 - interleaving.count)
    }

    /// One corpus file: imported, applied and published, the published file proved against the
    /// original, then imported again with no change; or refused, with the reason kept.
    static func importCorpusFile(
        _ w: TestWorld, name: String, file: [String: String], host: String, map: [String: String], lintsClean: Bool,
        outcomes: CorpusOutcomes
    ) async throws {
        var request = body(host, "", map: map, apply: true, publish: true)
        request["aasa"] = nil
        for (key, value) in file { request[key] = value }
        let reply = try await w.call(.post, "/v1/imports", token: w.adminToken, json: request)
        guard reply.status == 200 else {
            let rules = Set(reply.problemRules).sorted().joined(separator: ",")
            outcomes.refuse(name, "\(reply.status) \(rules): \(reply.object["detail"] as? String ?? "")")
            if lintsClean && !reply.problemRules.contains("interleaving") {
                Issue.record("\(name) lints clean but was refused: \(reply.text.prefix(600))")
            }
            return
        }
        outcomes.imported(name)
        let published = try await w.call(.get, "/v1/domains/\(host)/revisions/1/file", token: w.adminToken)
        let text = file["aasa"] ?? String(decoding: reply.body, as: UTF8.self)
        let signedJSON = file["aasaBase64"].flatMap { Data(base64Encoded: $0) }.flatMap {
            try? SignedFile.unwrap([UInt8]($0)).content
        }
        let original = signedJSON.flatMap { AASAParser.parse($0).document } ?? AASAParser.parse(text).document
        if let original, let served = AASAParser.parse(published.body).document {
            #expect(
                ImportProof(original: original, rendered: served, host: host).holds,
                "\(name): the published file means something else")
        }
        request["publish"] = nil
        request["reason"] = nil
        let again = try await w.call(.post, "/v1/imports", token: w.adminToken, json: request)
        #expect(again.object["changed"] as? Bool == false, "\(name): a second import changed something")
    }

    /// What the corpus test found, file by file.
    final class CorpusOutcomes: @unchecked Sendable {
        private let lock = NSLock()
        private var done: [String] = []
        private var refusals: [String: String] = [:]

        func imported(_ name: String) { lock.withLock { done.append(name) } }
        func refuse(_ name: String, _ reason: String) { lock.withLock { refusals[name] = reason } }
        var counts: (imported: [String], refused: [String: String]) { lock.withLock { (done, refusals) } }
    }

    /// `../shared` beside the repository (or `AASA_SHARED_DIR`), as the model tests find it.
    static let sharedDirectory = URL(
        fileURLWithPath: ProcessInfo.processInfo.environment["AASA_SHARED_DIR"]
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared").path)
}
