import AASAStore
import AASATestSupport
import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServer
@testable import AASAServices

/// Issue 42: the Android keys people get wrong, warned of before a publish (A020 only an upload
/// key on production, A021 another package's debug key, A022 a debug key on production), and the
/// app signing key taken from Play Console's snippet instead of retyped.
@Suite struct AndroidKeyTests {
    static let app = "com.shop.app"
    static let upload = (0..<32).map { String(format: "%02X", $0) }.joined(separator: ":")
    static let signing = (0..<32).map { String(format: "%02X", 255 - $0) }.joined(separator: ":")
    static let debug = (0..<32).map { String(format: "%02X", ($0 * 7) & 0xFF) }.joined(separator: ":")

    /// Play Console's snippet as App integrity → App signing shows it.
    static func snippet(_ package: String, _ keys: [String]) -> [[String: Any]] {
        [
            [
                "relation": ["delegate_permission/common.handle_all_urls"],
                "target": ["namespace": "android_app", "package_name": package, "sha256_cert_fingerprints": keys],
            ]
        ]
    }

    /// shop.test (granted to shop) with `package` listing `keys` (labelled), rules `/a/*`.
    static func setUp(
        _ w: TestWorld, package: String = app, keys: [String: String?], environment: String = "default"
    ) async throws {
        if try await w.call(.get, "/v1/teams/shop", token: w.adminToken).status == 404 {
            try #require(try await w.createTeam("shop").status == 201)
            let domain = try await w.call(
                .post, "/v1/domains", token: w.adminToken, json: ["host": "shop.test", "environment": environment])
            try #require(domain.status == 201, "\(domain.text)")
            try #require(
                try await w.call(
                    .put, "/v1/domains/shop.test/grants/shop", token: w.adminToken, json: ["pathPrefixes": ["/"]]
                ).status == 200)
        }
        var body: [String: Any] = [
            "appID": package, "platform": "android", "fingerprints": keys.keys.sorted(),
        ]
        let labels = keys.compactMapValues { $0 }
        if !labels.isEmpty { body["keyLabels"] = labels }
        let created = try await w.call(.post, "/v1/teams/shop/apps", token: w.adminToken, json: body)
        try #require(created.status == 201, "\(created.text)")
        let rules = try await w.call(
            .put, "/v1/domains/shop.test/apps/\(package)/rules", token: w.adminToken, json: ["rules": [["/": "/a/*"]]])
        try #require(rules.status == 200, "\(rules.text)")
    }

    /// The draft's key warnings: code → messages.
    static func keyWarnings(_ w: TestWorld, host: String = "shop.test") async throws -> [String: [String]] {
        let draft = try await w.call(.get, "/v1/domains/\(host)/assetlinks", token: w.adminToken)
        try #require(draft.status == 200, "\(draft.text)")
        var out: [String: [String]] = [:]
        for f in draft.object["warnings"] as? [[String: Any]] ?? [] {
            guard let code = f["code"] as? String, AndroidKeyWarnings.codes.contains(code) else { continue }
            out[code, default: []].append(f["message"] as? String ?? "")
        }
        return out
    }

    @Test func onlyTheUploadKeyOnProductionIsWarnedUntilPlaysKeyIsImported() async throws {
        try await TestWorld.run { w in
            try await Self.setUp(w, keys: [Self.upload: "upload"])
            let before = try await Self.keyWarnings(w)
            #expect(before.keys.sorted() == [AndroidKeyWarnings.playSigningMissing], "\(before)")
            #expect(
                before[AndroidKeyWarnings.playSigningMissing]?.first?.contains("Play Console → App integrity")
                    == true)
            // The warning rides with the publish too: it is a warning, so the publish goes ahead.
            let publish = try await w.call(
                .post, "/v1/domains/shop.test/publish", token: w.adminToken, json: ["reason": "t"])
            #expect(publish.status == 201, "\(publish.text)")

            let imported = try await w.call(
                .post, "/v1/apps/\(Self.app)/keys/play-signing", token: w.adminToken,
                json: Self.snippet(Self.app, [Self.signing]))
            try #require(imported.status == 200, "\(imported.text)")
            #expect(imported.object["fingerprints"] as? [String] == [Self.upload, Self.signing])
            #expect(
                imported.object["keyLabels"] as? [String: String]
                    == [Self.upload: "upload", Self.signing: "play-signing"])
            #expect(try await Self.keyWarnings(w).isEmpty)
            // The next file lists both keys; the audit names the import.
            let draft = try await w.call(.get, "/v1/domains/shop.test/assetlinks", token: w.adminToken)
            #expect(draft.text.contains(Self.signing) && draft.text.contains(Self.upload))
            let audit = try await w.call(.get, "/v1/audit?appID=\(Self.app)", token: w.adminToken)
            #expect(audit.text.contains("app.keys.play-signing"), "\(audit.text)")
            // A second import of the same snippet changes nothing but the version.
            let again = try await w.call(
                .post, "/v1/apps/\(Self.app)/keys/play-signing", token: w.adminToken,
                json: Self.snippet(Self.app, [Self.signing]))
            #expect(again.object["fingerprints"] as? [String] == [Self.upload, Self.signing])
        }
    }

    @Test func aSnippetForAnotherPackageOrOfAnotherShapeIsRefusedAndChangesNothing() async throws {
        try await TestWorld.run { w in
            try await Self.setUp(w, keys: [Self.upload: nil])
            let version = try await w.call(.get, "/v1/apps/\(Self.app)", token: w.adminToken).object["version"] as? Int
            let cases: [(Any, String, String)] = [
                (Self.snippet("com.other.app", [Self.signing]), "/0/target/package_name", "package"),
                (
                    [["target": ["namespace": "android_app", "package_name": Self.app]]],
                    "/0/target/sha256_cert_fingerprints", "required"
                ),
                (
                    Self.snippet(Self.app, [Self.signing.lowercased()]), "/0/target/sha256_cert_fingerprints/0",
                    "fingerprint"
                ),
                ([["relation": []]], "/0/target", "required"),
                ([] as [Any], "", "minItems"),
            ]
            for (body, field, rule) in cases {
                let reply = try await w.call(
                    .post, "/v1/apps/\(Self.app)/keys/play-signing", token: w.adminToken, json: body)
                #expect(reply.status == 422, "\(field): \(reply.text)")
                #expect(reply.problemFields.contains(field) && reply.problemRules.contains(rule), "\(reply.text)")
            }
            let after = try await w.call(.get, "/v1/apps/\(Self.app)", token: w.adminToken)
            #expect(after.object["version"] as? Int == version)
            #expect(after.object["fingerprints"] as? [String] == [Self.upload])
            // An iOS app has no Play signing key; a read token may not import one.
            try #require(
                try await w.call(.post, "/v1/teams/shop/apps", token: w.adminToken, json: ["appID": "ABCDE12345.shop"])
                    .status == 201)
            let ios = try await w.call(
                .post, "/v1/apps/ABCDE12345.shop/keys/play-signing", token: w.adminToken,
                json: Self.snippet("ABCDE12345.shop", [Self.signing]))
            #expect(ios.status == 422 && ios.problemRules.contains("platform"), "\(ios.text)")
            let read = try await w.teamToken("shop", scopes: ["read"]).secret
            let refused = try await w.call(
                .post, "/v1/apps/\(Self.app)/keys/play-signing", token: read,
                json: Self.snippet(Self.app, [Self.signing]))
            #expect(refused.status == 403)
        }
    }

    @Test func anotherPackagesDebugKeyAndADebugKeyOnProductionAreWarned() async throws {
        try await TestWorld.run { w in
            try await Self.setUp(
                w, package: "com.shop.sample", keys: [Self.debug: "debug", Self.signing: "play-signing"])
            try await Self.setUp(w, keys: [Self.debug: nil, Self.signing: "play-signing"])
            let warnings = try await Self.keyWarnings(w)
            #expect(warnings[AndroidKeyWarnings.anotherPackagesDebugKey]?.count == 1, "\(warnings)")
            #expect(warnings[AndroidKeyWarnings.anotherPackagesDebugKey]?.first?.contains("com.shop.sample") == true)
            #expect(warnings[AndroidKeyWarnings.debugKeyInProduction]?.count == 1, "\(warnings)")
            #expect(warnings[AndroidKeyWarnings.playSigningMissing] == nil)
            // The app's own answer after a change carries its key warnings.
            let patched = try await w.call(
                .patch, "/v1/apps/\(Self.app)", token: w.adminToken,
                json: ["keyLabels": [Self.signing: "play-signing", Self.debug: "release-old"]])
            #expect(patched.status == 200, "\(patched.text)")
            let codes = (patched.object["warnings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            #expect(codes == [AndroidKeyWarnings.anotherPackagesDebugKey], "\(patched.text)")
        }
    }

    /// A021 from a build's keys too: another app's dev build signed with the debug key this app lists.
    /// (Migration 0019 looks these up by the listed keys through an index; only listed keys count.)
    @Test func anotherAppsBuildsDebugKeyIsWarned() async throws {
        try await TestWorld.run { w in
            // Not production, where isolation would refuse the debug build outright.
            let environments = try await w.call(
                .put, "/v1/environments", token: w.adminToken, json: ["environments": ["default", "prod"]])
            try #require(environments.status == 200, "\(environments.text)")
            try await Self.setUp(w, package: "com.shop.sample", keys: [Self.signing: "play-signing"])
            let builds: [[String: Any]] = [
                [
                    "environment": "default", "appID": "com.shop.sample.dev",
                    "fingerprints": [["sha256": Self.debug, "label": "debug"]],
                ]
            ]
            let put = try await w.call(
                .put, "/v1/apps/com.shop.sample/builds", token: w.adminToken, json: ["builds": builds])
            try #require(put.status == 200, "\(put.text)")
            try await Self.setUp(w, keys: [Self.upload: "upload", Self.signing: "play-signing"])
            #expect(try await Self.keyWarnings(w)[AndroidKeyWarnings.anotherPackagesDebugKey] == nil, "not listed")
            let listed = try await w.call(
                .patch, "/v1/apps/\(Self.app)", token: w.adminToken,
                json: ["fingerprints": [Self.signing, Self.debug], "keyLabels": [Self.signing: "play-signing"]])
            #expect(listed.status == 200, "\(listed.text)")
            let warnings = try await Self.keyWarnings(w)[AndroidKeyWarnings.anotherPackagesDebugKey] ?? []
            #expect(warnings.count == 1 && warnings[0].contains("com.shop.sample.dev"), "\(warnings)")
        }
    }

    @Test func anUploadKeyIsWarnedOfOnProductionDomainsOnly() async throws {
        try await TestWorld.run { w in
            let environments = try await w.call(
                .put, "/v1/environments", token: w.adminToken, json: ["environments": ["default", "prod"]])
            try #require(environments.status == 200, "\(environments.text)")
            try await Self.setUp(w, keys: [Self.upload: "upload"], environment: "default")
            #expect(try await Self.keyWarnings(w).isEmpty)
            // The same app on the production domain is warned.
            try #require(
                try await w.call(
                    .post, "/v1/domains", token: w.adminToken, json: ["host": "shop.example", "environment": "prod"]
                ).status == 201)
            try #require(
                try await w.call(
                    .put, "/v1/domains/shop.example/grants/shop", token: w.adminToken, json: ["pathPrefixes": ["/"]]
                ).status == 200)
            try #require(
                try await w.call(
                    .put, "/v1/domains/shop.example/apps/\(Self.app)/rules", token: w.adminToken,
                    json: ["rules": [["/": "/a/*"]]]
                ).status == 200)
            #expect(try await Self.keyWarnings(w, host: "shop.example").keys.sorted() == ["A020"])
        }
    }

    @Test func labelsNameListedKeysWithNamesAndIOSAppsHaveNone() async throws {
        try await TestWorld.run { w in
            try await Self.setUp(w, keys: [Self.upload: nil])
            let unlisted = try await w.call(
                .patch, "/v1/apps/\(Self.app)", token: w.adminToken, json: ["keyLabels": [Self.signing: "upload"]])
            #expect(unlisted.status == 422 && unlisted.problemRules == ["listed"], "\(unlisted.text)")
            #expect(unlisted.problemFields == ["/keyLabels/\(Self.signing)"])
            let badLabel = try await w.call(
                .patch, "/v1/apps/\(Self.app)", token: w.adminToken, json: ["keyLabels": [Self.upload: "Play Signing"]])
            #expect(badLabel.status == 422 && badLabel.problemRules == ["label"], "\(badLabel.text)")
            // Changing the keys keeps the labels of those that stay and drops the others.
            let labelled = try await w.call(
                .patch, "/v1/apps/\(Self.app)", token: w.adminToken, json: ["keyLabels": [Self.upload: "upload"]])
            #expect(labelled.object["keyLabels"] as? [String: String] == [Self.upload: "upload"], "\(labelled.text)")
            let rekeyed = try await w.call(
                .patch, "/v1/apps/\(Self.app)", token: w.adminToken,
                json: ["fingerprints": [Self.upload, Self.signing]])
            #expect(rekeyed.object["keyLabels"] as? [String: String] == [Self.upload: "upload"], "\(rekeyed.text)")
            let dropped = try await w.call(
                .patch, "/v1/apps/\(Self.app)", token: w.adminToken, json: ["fingerprints": [Self.signing]])
            #expect(dropped.object["keyLabels"] == nil, "\(dropped.text)")
            let ios = try await w.call(
                .post, "/v1/teams/shop/apps", token: w.adminToken,
                json: ["appID": "ABCDE12345.shop", "keyLabels": [Self.upload: "upload"]])
            #expect(ios.status == 422, "\(ios.text)")
        }
    }

    /// `aasactl apps keys import APP --from-play FILE`, the way a developer runs it with the file
    /// saved from Play Console.
    @Test func aasactlImportsPlaysSnippetFromAFile() async throws {
        try await CLIEndToEndTests.withServer { server, cli, admin in
            #expect(
                try await Curl.call("POST", server.baseURL + "/v1/teams", token: admin, json: #"{"name":"shop"}"#)
                    .status == 201)
            let app = #"{"appID":"\#(Self.app)","platform":"android","fingerprints":["\#(Self.upload)"]}"#
            #expect(
                try await Curl.call("POST", server.baseURL + "/v1/teams/shop/apps", token: admin, json: app).status
                    == 201)
            let dir = try PublishingTests.tempDir()
            let file = dir + "/assetlinks.json"
            try JSONSerialization.data(withJSONObject: Self.snippet(Self.app, [Self.signing]), options: .prettyPrinted)
                .write(to: URL(fileURLWithPath: file))
            let run = try await cli("apps", "keys", "import", Self.app, "--from-play", file, "--output", "json")
            #expect(run.status == 0, "\(run)")
            #expect(run.out.contains("play-signing") && run.out.contains(Self.signing), "\(run)")
            try JSONSerialization.data(withJSONObject: Self.snippet("com.other", [Self.signing]))
                .write(to: URL(fileURLWithPath: file))
            let wrong = try await cli("apps", "keys", "import", Self.app, "--from-play", file)
            #expect(wrong.status != 0 && wrong.err.contains("package_name"), "\(wrong)")
            try Data("<html>".utf8).write(to: URL(fileURLWithPath: file))
            let notJSON = try await cli("apps", "keys", "import", Self.app, "--from-play", file)
            #expect(notJSON.status != 0 && notJSON.err.contains("not JSON"), "\(notJSON)")
        }
    }
}
