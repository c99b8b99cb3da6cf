import AASAModel
import AASATestSupport
import Foundation
import HTTPTypes
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServer
@testable import AASAServices

/// Issue 20, the Android half: a domain's assetlinks.json moved in beside (or without) its AASA,
/// with `AssetLinksDiff` and the device's decisions as the proof. Against PostgreSQL and real files.
@Suite(.serialized) struct AssetLinksImportTests {
    static let upload = (0..<32).map { String(format: "%02X", $0) }.joined(separator: ":")
    static let play = (0..<32).map { String(format: "%02X", 255 - $0) }.joined(separator: ":")

    /// Two teams: shop's Android app with dynamic rules beside its iOS app, and news's Android app
    /// left to its manifest (a claim on the whole domain) that also shares credentials; the
    /// relations in the other order than the renderer writes them, and one package split over two
    /// statements.
    static var android: String {
        """
        [{"relation":["delegate_permission/common.handle_all_urls"],
          "target":{"namespace":"android_app","package_name":"com.shop.app",
                    "sha256_cert_fingerprints":["\(upload)","\(play)"]},
          "relation_extensions":{"delegate_permission/common.handle_all_urls":{"dynamic_app_link_components":[
            {"/":"/shop/admin/*","exclude":true,"comments":"staff only"},{"/":"/shop/*","?":{"ref":"*"}}]}}},
         {"relation":["delegate_permission/common.get_login_creds","delegate_permission/common.handle_all_urls"],
          "target":{"namespace":"android_app","package_name":"com.news.app","sha256_cert_fingerprints":["\(upload)"]}},
         {"relation":["delegate_permission/common.get_login_creds"],
          "target":{"namespace":"android_app","package_name":"com.shop.app","sha256_cert_fingerprints":["\(play)"]}}]
        """
    }

    static let aasa = #"{"applinks":{"details":[{"appID":"ABCDE12345.com.shop.app","components":[{"/":"/shop/*"}]}]}}"#
    static let map = ["ABCDE12345": "shop", "com.shop": "shop", "com.news.app": "news"]

    static func body(_ host: String, aasa: String?, android: String?, apply: Bool = false) -> [String: Any] {
        var body: [String: Any] = ["host": host, "teamMap": map, "apply": apply]
        if let aasa { body["aasa"] = aasa }
        if let android { body["assetlinks"] = android }
        return body
    }

    @Test func bothFilesPlanApplyPublishAndNoOp() async throws {
        try await TestWorld.run { w in
            try await w.createTeam("shop")
            try await w.createTeam("news")
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("al-import-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: root) }

            let plan = try await w.call(
                .post, "/v1/imports", token: w.adminToken,
                json: Self.body("example.com", aasa: Self.aasa, android: Self.android))
            #expect(plan.status == 200, "\(plan.text)")
            let apps = plan.object["apps"] as? [[String: Any]] ?? []
            #expect(
                apps.map { "\($0["appID"] ?? "") \($0["platform"] ?? "") \($0["team"] ?? "")" } == [
                    "ABCDE12345.com.shop.app ios shop", "com.shop.app android shop", "com.news.app android news",
                ])
            try #require(apps.count == 3)
            let shopAndroid = apps[1]
            #expect(shopAndroid["fingerprints"] as? [String] == [Self.upload, Self.play])
            #expect(shopAndroid["services"] as? [String] == ["applinks", "webcredentials"])
            #expect((shopAndroid["rules"] as? [[String: Any]])?.first?["comment"] as? String == "staff only")
            #expect(apps[2]["manifestDecides"] as? Bool == true)
            let grants = plan.object["grants"] as? [[String: Any]] ?? []
            #expect(grants.map { $0["domainWide"] as? Bool } == [false, true], "news's manifest claims everything")
            let proof = plan.object["androidProof"] as? [String: Any] ?? [:]
            #expect(proof["holds"] as? Bool == true, "\(plan.text)")
            #expect((proof["urlsChecked"] as? Int ?? 0) > 5)
            #expect(proof["sameBytes"] as? Bool == false, "two statements of com.shop.app become one")

            // The plan's state tag: an apply against another state is refused and writes nothing.
            let tag = try #require(plan.object["stateTag"] as? String)
            let applyBody = Self.body("example.com", aasa: Self.aasa, android: Self.android, apply: true).merging(
                ["publish": true, "reason": "moved in", "webRoots": [root.path]], uniquingKeysWith: { $1 })
            let stale = try await w.call(
                .post, "/v1/imports", token: w.adminToken, json: applyBody, headers: ["If-Match": "\"i-0\""])
            #expect(stale.status == 412, "\(stale.text)")
            #expect(try await w.call(.get, "/v1/domains/example.com", token: w.adminToken).status == 404)
            let applied = try await w.call(
                .post, "/v1/imports", token: w.adminToken, json: applyBody, headers: ["If-Match": tag])
            #expect(applied.status == 200, "\(applied.text)")
            #expect(applied.object["stateTag"] as? String == tag, "the tag names the state planned against")
            // After the apply the state is another: the old plan's tag no longer applies.
            let replay = try await w.call(
                .post, "/v1/imports", token: w.adminToken,
                json: Self.body("example.com", aasa: Self.aasa, android: Self.android, apply: true),
                headers: ["If-Match": tag])
            #expect(replay.status == 412, "\(replay.text)")
            let served = try #require(FileManager.default.contents(atPath: root.path + "/.well-known/assetlinks.json"))
            let original = try #require(AssetLinksDocument.parse(Array(Self.android.utf8)).document)
            let published = try #require(AssetLinksDocument.parse([UInt8](served)).document)
            #expect(AssetLinksDiff(from: original, to: published).isEmpty, "\(String(decoding: served, as: UTF8.self))")
            #expect(AssetLinksProof(original: original, rendered: published, host: "example.com").holds)
            // The manifest's statement carries no dynamic rules, and its rule set says so.
            let news = try await w.call(.get, "/v1/domains/example.com/apps/com.news.app/rules", token: w.adminToken)
            #expect(
                news.object["manifestDecides"] as? Bool == true && (news.object["rules"] as? [Any])?.isEmpty == true)

            let again = try await w.call(
                .post, "/v1/imports", token: w.adminToken,
                json: Self.body("example.com", aasa: Self.aasa, android: Self.android, apply: true))
            #expect(again.object["changed"] as? Bool == false, "\(again.text)")
        }
    }

    /// What the registry cannot say is refused, naming the place in the file, and nothing is written.
    @Test func whatCannotBeSaidIsRefused() async throws {
        try await TestWorld.run { w in
            try await w.createTeam("shop")
            try await w.createTeam("news")
            let web = """
                [{"relation":["delegate_permission/common.get_login_creds"],
                  "target":{"namespace":"web","site":"https://example.org"}}]
                """
            let lower = """
                [{"relation":["delegate_permission/common.handle_all_urls"],
                  "target":{"namespace":"android_app","package_name":"com.shop.app",
                            "sha256_cert_fingerprints":["\(Self.upload.lowercased())"]}}]
                """
            let unclaimed = """
                [{"relation":["delegate_permission/common.handle_all_urls"],
                  "target":{"namespace":"android_app","package_name":"org.other.app",
                            "sha256_cert_fingerprints":["\(Self.upload)"]}}]
                """
            // Two teams whose rules reach each other's: /shop for one, /shop/sale/* for the other.
            let interleaved = """
                [{"relation":["delegate_permission/common.handle_all_urls"],
                  "target":{"namespace":"android_app","package_name":"com.shop.app",
                            "sha256_cert_fingerprints":["\(Self.upload)"]},
                  "relation_extensions":{"delegate_permission/common.handle_all_urls":{
                    "dynamic_app_link_components":[{"/":"/shop"}]}}},
                 {"relation":["delegate_permission/common.handle_all_urls"],
                  "target":{"namespace":"android_app","package_name":"com.news.app",
                            "sha256_cert_fingerprints":["\(Self.upload)"]},
                  "relation_extensions":{"delegate_permission/common.handle_all_urls":{
                    "dynamic_app_link_components":[{"/":"/shop/sale/*"}]}}}]
                """
            let cases: [(String, String, String)] = [
                (web, "/assetlinks/0/target", "web-target"),
                (lower, "/assetlinks/0/target/sha256_cert_fingerprints/0", "L041"),
                (unclaimed, "/assetlinks/0/target/package_name", "team-map"),
                (interleaved, "/assetlinks/1/target/package_name", "interleaving"),
                ("<html>nope</html>", "/assetlinks", "L001"),
            ]
            for (file, field, rule) in cases {
                let reply = try await w.call(
                    .post, "/v1/imports", token: w.adminToken,
                    json: Self.body("example.com", aasa: nil, android: file, apply: true))
                #expect(reply.status == 422, "\(rule): \(reply.text)")
                #expect(reply.problemFields.contains(field), "\(rule): \(reply.text)")
                #expect(reply.problemRules.contains(rule), "\(rule): \(reply.text)")
            }
            #expect(try await w.call(.get, "/v1/domains/example.com", token: w.adminToken).status == 404)

            // An app registered with other keys than the file lists is refused, not changed.
            let shop = try await w.teamToken("shop", scopes: ["write"]).secret
            try #require(
                try await w.call(
                    .post, "/v1/teams/shop/apps", token: shop,
                    json: [
                        "appID": "com.shop.app", "platform": "android", "fingerprints": [Self.play],
                        "services": ["applinks", "webcredentials"],
                    ]
                ).status == 201)
            let other = try await w.call(
                .post, "/v1/imports", token: w.adminToken,
                json: Self.body("example.com", aasa: nil, android: Self.android, apply: true))
            #expect(other.status == 422 && other.problemRules.contains("fingerprints"), "\(other.text)")
            #expect(other.problemFields.contains("/assetlinks/0/target/package_name"), "\(other.text)")
        }
    }

    /// `manifestDecides` through the rules API: an Android app only, without rules, and only under
    /// a grant of the whole domain; the draft then lists the app with no dynamic rules.
    @Test func aStatementLeftToTheManifestNeedsTheWholeDomain() async throws {
        try await TestWorld.run { w in
            try await w.createTeam("shop")
            let shop = try await w.teamToken("shop", scopes: ["write"]).secret
            try #require(
                try await w.call(.post, "/v1/teams/shop/apps", token: shop, json: ["appID": "ABCDE12345.com.shop.app"])
                    .status == 201)
            try #require(
                try await w.call(
                    .post, "/v1/teams/shop/apps", token: shop,
                    json: ["appID": "com.shop.app", "platform": "android", "fingerprints": [Self.upload]]
                ).status == 201)
            try #require(
                try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "example.com"]).status
                    == 201)
            let grant = "/v1/domains/example.com/grants/shop"
            try #require(
                try await w.call(.put, grant, token: w.adminToken, json: ["pathPrefixes": ["/shop"]]).status == 200)
            let rules = "/v1/domains/example.com/apps/com.shop.app/rules"
            let ios = try await w.call(
                .put, "/v1/domains/example.com/apps/ABCDE12345.com.shop.app/rules", token: shop,
                json: ["rules": [], "manifestDecides": true])
            #expect(ios.status == 422 && ios.problemRules == ["manifest-decides"], "\(ios.text)")
            let both = try await w.call(
                .put, rules, token: shop, json: ["rules": [["/": "/shop/*"]], "manifestDecides": true])
            #expect(both.status == 422 && both.problemRules == ["manifest-decides"], "\(both.text)")
            let narrow = try await w.call(.put, rules, token: shop, json: ["rules": [], "manifestDecides": true])
            #expect(narrow.status == 422 && narrow.problemRules == ["catch-all"], "\(narrow.text)")
            #expect(narrow.problemFields == ["/rules"], "\(narrow.text)")

            try #require(
                try await w.call(.put, grant, token: w.adminToken, json: ["pathPrefixes": ["/"]]).status == 200)
            let wide = try await w.call(.put, rules, token: shop, json: ["rules": [], "manifestDecides": true])
            #expect(wide.status == 200 && wide.object["manifestDecides"] as? Bool == true, "\(wide.text)")
            let draft = try await w.call(.get, "/v1/domains/example.com/assetlinks", token: shop)
            let text = draft.text
            #expect(text.contains("com.shop.app") && text.contains("handle_all_urls"), "\(text)")
            #expect(!text.contains("dynamic_app_link_components"), "\(text)")

            // Appending a rule replaces the manifest's say with that rule.
            let appended = try await w.call(.post, rules, token: shop, json: ["/": "/shop/*"])
            #expect(appended.status == 201 && appended.object["manifestDecides"] == nil, "\(appended.text)")
        }
    }

    /// With several environments, a domain the import creates names its environment; an existing
    /// domain must already be in the one named.
    @Test func anImportNamesTheEnvironmentOfTheDomainItCreates() async throws {
        try await TestWorld.run { w in
            try await w.createTeam("shop")
            try await w.createTeam("news")
            try #require(
                try await w.call(
                    .put, "/v1/environments", token: w.adminToken, json: ["environments": ["staging", "prod"]]
                ).status == 200)
            var body = Self.body("example.com", aasa: Self.aasa, android: Self.android, apply: true)
            let unnamed = try await w.call(.post, "/v1/imports", token: w.adminToken, json: body)
            #expect(unnamed.status == 422 && unnamed.problemFields == ["/environment"], "\(unnamed.text)")
            body["environment"] = "prod"
            let named = try await w.call(.post, "/v1/imports", token: w.adminToken, json: body)
            #expect(named.status == 200, "\(named.text)")
            let domain = try await w.call(.get, "/v1/domains/example.com", token: w.adminToken)
            #expect(domain.object["environment"] as? String == "prod", "\(domain.text)")
            body["environment"] = "staging"
            let other = try await w.call(.post, "/v1/imports", token: w.adminToken, json: body)
            #expect(other.status == 422 && other.problemRules == ["environment"], "\(other.text)")
        }
    }

    /// Both files fetched from the origin through the probe tests' TLS stand-in.
    @Test func bothFilesFromTheOrigin() async throws {
        let origin = try await offPool { try ProbeTests.Origin() }
        try origin.serve("good.test", Array(Self.aasa.utf8))
        try origin.serveAssetLinks("good.test", Self.android)
        try await TestWorld.run(configure: origin.configure) { w in
            try await w.createTeam("shop")
            try await w.createTeam("news")
            let reply = try await w.call(
                .post, "/v1/imports", token: w.adminToken,
                json: ["host": "good.test", "source": "origin", "teamMap": Self.map, "apply": true])
            #expect(reply.status == 200, "\(reply.text)")
            #expect((reply.object["androidProof"] as? [String: Any])?["holds"] as? Bool == true, "\(reply.text)")
            #expect((reply.object["apps"] as? [[String: Any]])?.count == 3)
        }
    }

    /// Every real assetlinks.json of Tests/Fixtures/assetlinks: a team per package, imported alone,
    /// applied and published, the published file proved against the original (no AssetLinksDiff
    /// change, the same decisions), then imported again with no change; or refused, naming why, and
    /// then only where the validator finds an error too (or the file has a statement or relation the
    /// registry does not write).
    @Test func everyAssetLinksFixtureImportsOrSaysWhy() async throws {
        let directory = URL(fileURLWithPath: TestDatabase.repositoryRoot + "/Tests/Fixtures/assetlinks")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") && $0 != "verdicts.json" }.sorted()
        let verdicts =
            try JSONParser.parse([UInt8](try Data(contentsOf: directory.appendingPathComponent("verdicts.json"))))
            .value.objectValue ?? [:]
        let outcomes = ImportTests.CorpusOutcomes()
        try await TestWorld.run { w in
            var teams = Set<String>()
            for (i, name) in names.enumerated() {
                let text = String(decoding: try Data(contentsOf: directory.appendingPathComponent(name)), as: UTF8.self)
                let packages =
                    AssetLinksDocument.parse(Array(text.utf8)).document?.statements.compactMap {
                        _, statement -> String? in
                        if case .androidApp(let package, _) = statement.target { return package }
                        return nil
                    } ?? []
                // A team per package (one package may stand in several files: each file its own team).
                var map: [String: String] = [:]
                for package in packages {
                    let team = "f\(i)" + String(package.filter { $0.isLetter }.prefix(20)).lowercased()
                    if teams.insert(team).inserted { try await w.createTeam(team) }
                    map[package] = team
                }
                if map.isEmpty { map["org.nobody"] = "nobody" }
                let host = "a\(i).example.com"
                var request: [String: Any] = [
                    "host": host, "assetlinks": text, "teamMap": map, "apply": true, "publish": true,
                    "reason": "moved in",
                ]
                let reply = try await w.call(.post, "/v1/imports", token: w.adminToken, json: request)
                guard reply.status == 200 else {
                    outcomes.refuse(
                        name,
                        "\(reply.status) \(Set(reply.problemRules).sorted().joined(separator: ",")): "
                            + (reply.object["detail"] as? String ?? ""))
                    let errors = verdicts[name]?.arrayValue ?? []
                    #expect(
                        !errors.isEmpty || reply.problemRules.contains("web-target")
                            || reply.problemRules.contains("relation"),
                        "\(name) is valid yet refused: \(reply.text.prefix(600))")
                    continue
                }
                outcomes.imported(name)
                let published = try await w.call(
                    .get, "/v1/domains/\(host)/assetlinks/revisions/1/file", token: w.adminToken)
                let original = try #require(AssetLinksDocument.parse(Array(text.utf8)).document)
                let served = try #require(AssetLinksDocument.parse(published.body).document, "\(name)")
                #expect(AssetLinksDiff(from: original, to: served).isEmpty, "\(name): \(published.text)")
                #expect(AssetLinksProof(original: original, rendered: served, host: host).holds, "\(name)")
                request["publish"] = nil
                request["reason"] = nil
                let again = try await w.call(.post, "/v1/imports", token: w.adminToken, json: request)
                #expect(again.object["changed"] as? Bool == false, "\(name): a second import changed something")
            }
        }
        let (imported, refused) = outcomes.counts
        print("assetlinks import: \(imported.count) imported, \(refused.count) refused")
        for (name, reason) in refused.sorted(by: { $0.key < $1.key }) { print("  refused \(name): \(reason)") }
        #expect(imported.count + refused.count == names.count)
        // 24 of 32 when this was written: 7 refused by the validator, 1 for a relation the registry
        // does not write (use_as_origin).
        #expect(imported.count >= 24, "most real files import")
    }
}
