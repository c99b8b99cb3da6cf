import Foundation
import HTTPTypes
import Testing

/// Issue 40: one publish dry run. `POST …/publish?dryRun=true` runs the whole publish, every
/// policy included, and rolls it back; the console's publish preview asks it, so the preview shows
/// the refusal the button would get. The case: an admin forced a debug key into the production
/// Android build (the draft holds it), and environment isolation refuses its publish.
@Suite struct PublishDryRunTests {
    /// The three-environment world of `EnvironmentTests`, with a debug key forced into prod's build.
    static func debugKeyOnProduction(_ w: TestWorld) async throws -> (shop: String, roots: [String: String]) {
        let (shop, roots) = try await EnvironmentTests.setUp(w)
        let builds = try await w.call(.get, "/v1/apps/com.example.app/builds", token: shop)
        var list = try #require(builds.object["builds"] as? [[String: Any]], "\(builds.text)")
        let debugKey = (0..<32).map { String(format: "%02X", ($0 * 11 + 5) % 256) }.joined(separator: ":")
        for i in list.indices where list[i]["environment"] as? String == "prod" {
            var keys = list[i]["fingerprints"] as? [[String: Any]] ?? []
            keys.append(["sha256": debugKey, "label": "debug"])
            list[i]["fingerprints"] = keys
        }
        let forced = try await w.call(
            .put, "/v1/apps/com.example.app/builds?force=true&reason=incident", token: w.adminToken,
            json: ["builds": list])
        try #require(forced.status == 200, "\(forced.text)")
        return (shop, roots)
    }

    @Test func aDryRunRefusesAsThePublishWouldAndChangesNothing() async throws {
        try await TestWorld.run { w in
            let (_, roots) = try await Self.debugKeyOnProduction(w)
            let prodRoot = try #require(roots["prod"])
            let files = try ["apple-app-site-association", "assetlinks.json"].map {
                try EnvironmentTests.file(prodRoot, $0)
            }
            let revisions = try await w.call(.get, "/v1/domains/example.com/revisions", token: w.adminToken).text
            let dry = try await w.call(
                .post, "/v1/domains/example.com/publish?dryRun=true", token: w.adminToken, json: ["reason": "try"])
            #expect(dry.status == 409 && dry.text.contains("environment-isolation"), "\(dry.text)")
            let real = try await w.call(
                .post, "/v1/domains/example.com/publish", token: w.adminToken, json: ["reason": "go"])
            #expect(real.status == dry.status && real.object["type"] as? String == dry.object["type"] as? String)
            #expect(
                try ["apple-app-site-association", "assetlinks.json"].map { try EnvironmentTests.file(prodRoot, $0) }
                    == files)
            #expect(try await w.call(.get, "/v1/domains/example.com/revisions", token: w.adminToken).text == revisions)
        }
    }

    @Test func aDryRunThatPassesSaysWhatWouldBePublishedAndStoresNothing() async throws {
        try await TestWorld.run { w in
            let (shop, roots) = try await EnvironmentTests.setUp(w)
            let stagingRoot = try #require(roots["staging"])
            let staging = "/v1/domains/staging.example.com"
            let put = try await w.call(
                .put, "\(staging)/apps/ABCDE12345.com.example.app/rules", token: shop,
                json: ["rules": [["/": "/shop/*"], ["/": "/deals/*"]]])
            try #require(put.status == 200)
            let before = try EnvironmentTests.file(stagingRoot, "apple-app-site-association")
            let audit = try await w.call(.get, "/v1/audit?domain=staging.example.com", token: w.adminToken)
            let dry = try await w.call(.post, "\(staging)/publish?dryRun=true", token: shop, json: ["reason": "try"])
            #expect(dry.status == 200, "\(dry.text)")
            #expect(dry.object["dryRun"] as? Bool == true && dry.object["created"] as? Bool == true)
            let revision = try #require(dry.object["revision"] as? [String: Any])
            #expect(revision["number"] as? Int == 2, "the revision it would be: \(dry.text)")
            #expect(dry.text.contains("/deals/*"), "its diff names the new rule")
            #expect((dry.object["targets"] as? [Any])?.isEmpty == true, "no web root written")
            #expect(try EnvironmentTests.file(stagingRoot, "apple-app-site-association") == before)
            let served = try await w.call(
                .get, "/.well-known/apple-app-site-association", headers: ["Host": "staging.example.com"])
            #expect(!served.text.contains("/deals/*"))
            let list = try await w.call(.get, "\(staging)/revisions", token: w.adminToken)
            #expect((list.object["items"] as? [Any])?.count == 1)
            #expect(
                try await w.call(.get, "/v1/audit?domain=staging.example.com", token: w.adminToken).text == audit.text,
                "nothing audited")
            let domain = try await w.call(.get, staging, token: shop)
            #expect(
                (domain.object["unpublished"] as? [String: Any])?["aasa"] as? Bool == true,
                "the domain says the AASA has unpublished changes: \(domain.text)")
            #expect((domain.object["unpublished"] as? [String: Any])?["assetLinks"] as? Bool == true)
        }
    }

    @Test func theConsolesPreviewShowsTheRefusalAPublishWouldGet() async throws {
        try await TestWorld.run { w in
            _ = try await Self.debugKeyOnProduction(w)
            let b = ConsoleTests.Browser(w)
            #expect(try await b.signIn(w.adminToken).status == 303)
            let refused = try await b.get("/console/domains/example.com/publish")
            #expect(refused.status == 200)
            #expect(refused.text.contains("Publishing now would be refused"), "\(refused.text)")
            #expect(refused.text.contains("environment-isolation") && refused.text.contains("debug-key"))
            let fine = try await b.get("/console/domains/staging.example.com/publish")
            #expect(fine.text.contains("every check passes") && !fine.text.contains("would be refused"))
        }
    }
}
