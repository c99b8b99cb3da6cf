import AASAKernel
import AASAOutbound
import AASARules
import AASAServer
import AASAServices
import AASAStore
import AASATestSupport
import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import Testing

private let ios = "ABCDE12345.com.example.app"
private let android = "com.example.app"
private func key(_ seed: Int) -> String {
    (0..<32).map { String(format: "%02X", ($0 * 7 + seed) % 256) }.joined(separator: ":")
}
private let debugKey = key(1)
private let uploadKey = key(2)
private let playKey = key(3)
private let hosts = ["dev": "dev.example.com", "staging": "staging.example.com", "prod": "example.com"]

private var iosBuilds: [[String: Any]] {
    [
        ["environment": "dev", "appID": "\(ios).dev"], ["environment": "staging", "appID": "\(ios).beta"],
        ["environment": "prod", "appID": ios],
    ]
}
private var androidBuilds: [[String: Any]] {
    [
        [
            "environment": "dev", "appID": "\(android).dev",
            "fingerprints": [["sha256": debugKey, "label": "debug"]],
        ],
        [
            "environment": "staging", "appID": "\(android).beta",
            "fingerprints": [["sha256": uploadKey, "label": "upload"]],
        ],
        [
            "environment": "prod", "appID": android,
            "fingerprints": [["sha256": uploadKey, "label": "upload"], ["sha256": playKey, "label": "play-signing"]],
        ],
    ]
}

/// Issue 25 on PostgreSQL and real files: one team's iOS and Android app, each with a dev, a beta
/// and a store build, over dev, staging and prod domains. One rule list renders three files, each
/// naming only its own environment's builds; isolation refuses leaks; promotion brings staging's
/// published rules to prod and links the revisions.
@Suite struct EnvironmentTests {
    /// Three environments, three domains with a web root each, one team with both apps and their
    /// builds, one rule list on every domain; every domain published. Returns the team's token and
    /// the web roots by environment.
    static func setUp(_ w: TestWorld) async throws -> (shop: String, roots: [String: String]) {
        let environments = try await w.call(
            .put, "/v1/environments", token: w.adminToken, json: ["environments": ["dev", "staging", "prod"]])
        try #require(environments.status == 200, "\(environments.text)")
        try await w.createTeam("shop")
        let shop = try await w.teamToken("shop", scopes: ["write"]).secret
        try #require(try await w.call(.post, "/v1/teams/shop/apps", token: shop, json: ["appID": ios]).status == 201)
        let created = try await w.call(
            .post, "/v1/teams/shop/apps", token: shop,
            json: ["appID": android, "platform": "android", "fingerprints": [uploadKey], "rulesFrom": ios])
        try #require(created.status == 201, "\(created.text)")
        var roots: [String: String] = [:]
        for (environment, host) in hosts {
            let root = try PublishingTests.tempDir()
            roots[environment] = root
            let domain = try await w.call(
                .post, "/v1/domains", token: w.adminToken,
                json: ["host": host, "environment": environment, "webRoots": [root]])
            try #require(domain.status == 201, "\(domain.text)")
            #expect(domain.object["environment"] as? String == environment)
            try #require(
                try await w.call(
                    .put, "/v1/domains/\(host)/grants/shop", token: w.adminToken, json: ["pathPrefixes": ["/"]]
                ).status == 200)
        }
        for (app, builds) in [(ios, iosBuilds), (android, androidBuilds)] {
            let put = try await w.call(.put, "/v1/apps/\(app)/builds", token: shop, json: ["builds": builds])
            try #require(put.status == 200, "\(put.text)")
        }
        for host in hosts.values {
            let rules = try await w.call(
                .put, "/v1/domains/\(host)/apps/\(ios)/rules", token: shop, json: ["rules": [["/": "/shop/*"]]])
            try #require(rules.status == 200, "\(rules.text)")
            let published = try await w.call(
                .post, "/v1/domains/\(host)/publish", token: w.adminToken, json: ["reason": "first"])
            try #require(published.status == 201, "\(published.text)")
        }
        return (shop, roots)
    }

    static func file(_ root: String, _ name: String) throws -> String {
        try String(contentsOfFile: "\(root)/.well-known/\(name)", encoding: .utf8)
    }

    @Test func oneRuleListRendersEachEnvironmentsOwnBuilds() async throws {
        try await TestWorld.run { w in
            let (_, roots) = try await Self.setUp(w)
            let expected = ["dev": ("\(ios).dev", "\(android).dev"), "staging": ("\(ios).beta", "\(android).beta")]
            for (environment, (iosID, androidID)) in expected {
                let root = try #require(roots[environment])
                #expect(
                    try Self.file(root, "apple-app-site-association")
                        == #"{"applinks":{"details":[{"appIDs":["\#(iosID)"],"components":[{"/":"/shop/*"}]}]}}"#)
                let links = try Self.file(root, "assetlinks.json")
                #expect(links.contains(#""package_name": "\#(androidID)""#), "\(links)")
                #expect(!links.contains(#""package_name": "\#(android)""#))
            }
            let prod = try #require(roots["prod"])
            #expect(
                try Self.file(prod, "apple-app-site-association")
                    == #"{"applinks":{"details":[{"appIDs":["\#(ios)"],"components":[{"/":"/shop/*"}]}]}}"#)
            let links = try Self.file(prod, "assetlinks.json")
            #expect(links.contains(playKey) && links.contains(uploadKey) && !links.contains(debugKey))
            #expect(try Self.file(try #require(roots["dev"]), "assetlinks.json").contains(debugKey))

            // Entitlements per environment name the build and only its environment's domains.
            let staging = try await w.call(.get, "/v1/apps/\(ios)/entitlements?env=staging", token: w.adminToken)
            #expect(staging.object["appID"] as? String == "\(ios).beta")
            #expect(staging.object["associatedDomains"] as? [String] == ["applinks:staging.example.com"])
            let dev = try await w.call(.get, "/v1/apps/\(ios)/entitlements?env=dev&mode=developer", token: w.adminToken)
            #expect(dev.object["associatedDomains"] as? [String] == ["applinks:dev.example.com?mode=developer"])
            let unknown = try await w.call(.get, "/v1/apps/\(ios)/entitlements?env=qa", token: w.adminToken)
            #expect(unknown.status == 422 && unknown.text.contains("unknown-environment"))
        }
    }

    /// A build's app ID is taken: registering it as an app is 409 naming the build, and writes
    /// nothing (the insert itself refuses it, in the statement that writes the app).
    @Test func anAppCannotTakeABuildsID() async throws {
        try await TestWorld.run { w in
            let (shop, _) = try await Self.setUp(w)
            let taken = try await w.call(.post, "/v1/teams/shop/apps", token: shop, json: ["appID": "\(ios).beta"])
            #expect(taken.status == 409, "\(taken.text)")
            #expect(taken.text.contains("\(ios)'s staging build") && taken.text.contains("unique"), "\(taken.text)")
            #expect(try await w.call(.get, "/v1/apps/\(ios).beta", token: shop).status == 404)
            let free = try await w.call(.post, "/v1/teams/shop/apps", token: shop, json: ["appID": "\(ios).other"])
            #expect(free.status == 201, "\(free.text)")
            #expect(free.object["appID"] as? String == "\(ios).other" && free.object["team"] as? String == "shop")
        }
    }

    @Test func isolationRefusesLeaksNamingThem() async throws {
        try await TestWorld.run { w in
            let (shop, roots) = try await Self.setUp(w)
            let prodBefore = try Self.file(try #require(roots["prod"]), "assetlinks.json")
            // A debug key on the prod build: refused, naming the key, the build and the domain.
            var builds = androidBuilds
            builds[2]["fingerprints"] = [
                ["sha256": playKey, "label": "play-signing"], ["sha256": debugKey, "label": "debug"],
            ]
            let debug = try await w.call(.put, "/v1/apps/\(android)/builds", token: shop, json: ["builds": builds])
            #expect(debug.status == 409, "\(debug.text)")
            #expect(
                debug.text.contains("debug-key") && debug.text.contains(debugKey) && debug.text.contains("example.com"))
            // An admin may override it, with a reason, and the override is recorded.
            let forced = try await w.call(
                .put, "/v1/apps/\(android)/builds?force=true&reason=incident%2042", token: w.adminToken,
                json: ["builds": builds])
            #expect(forced.status == 200, "\(forced.text)")
            let audit = try await w.call(.get, "/v1/audit?domain=example.com", token: w.adminToken)
            #expect(audit.text.contains("policy.override") && audit.text.contains("environment-isolation"))
            // No play-signing key in prod: refused, unless acknowledged.
            builds[2]["fingerprints"] = [["sha256": uploadKey, "label": "upload"]]
            let missing = try await w.call(.put, "/v1/apps/\(android)/builds", token: shop, json: ["builds": builds])
            #expect(missing.status == 409 && missing.text.contains("play-signing-missing"), "\(missing.text)")
            builds[2]["playSigningAbsent"] = true
            let acknowledged = try await w.call(
                .put, "/v1/apps/\(android)/builds", token: shop, json: ["builds": builds])
            #expect(acknowledged.status == 200, "\(acknowledged.text)")
            #expect(
                try Self.file(try #require(roots["prod"]), "assetlinks.json") == prodBefore, "only a publish writes")

            // Bad input names the field and writes nothing.
            var twins = iosBuilds
            twins[1]["appID"] = "\(ios).dev"
            let twice = try await w.call(.put, "/v1/apps/\(ios)/builds", token: shop, json: ["builds": twins])
            #expect(twice.status == 422 && twice.text.contains("/builds/1/appID"), "\(twice.text)")
            var nowhere = iosBuilds
            nowhere[0]["environment"] = "qa"
            let unknown = try await w.call(.put, "/v1/apps/\(ios)/builds", token: shop, json: ["builds": nowhere])
            #expect(unknown.status == 422 && unknown.text.contains("/builds/0/environment"), "\(unknown.text)")
            let domain = try await w.call(
                .post, "/v1/domains", token: w.adminToken, json: ["host": "qa.example.com", "environment": "qa"])
            #expect(domain.status == 422 && domain.text.contains("/environment"), "\(domain.text)")
            let unnamed = try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "x.example.com"])
            #expect(unnamed.status == 422 && unnamed.text.contains("required"), "\(unnamed.text)")
            // An app ID that is a build is not an app of its own.
            let taken = try await w.call(.post, "/v1/teams/shop/apps", token: shop, json: ["appID": "\(ios).beta"])
            #expect(taken.status == 409, "\(taken.text)")

            // The iOS app loses its dev build: the dev domain would name the store app. Refused.
            let dropped = try await w.call(
                .put, "/v1/apps/\(ios)/builds", token: shop, json: ["builds": Array(iosBuilds.dropFirst())])
            #expect(dropped.status == 409 && dropped.text.contains("build-missing"), "\(dropped.text)")
            // A domain moved to an environment whose builds its file would then name: judged the same way.
            try await w.createTeam("blog")
            let blog = try await w.teamToken("blog", scopes: ["write"]).secret
            #expect(
                try await w.call(.post, "/v1/teams/blog/apps", token: blog, json: ["appID": "KLMNO12345.com.blog"])
                    .status == 201)
            #expect(
                try await w.call(
                    .put, "/v1/apps/KLMNO12345.com.blog/builds", token: blog,
                    json: ["builds": [["environment": "prod", "appID": "KLMNO12345.com.blog"]]]
                ).status == 200)
            #expect(
                try await w.call(
                    .put, "/v1/domains/example.com/grants/blog", token: w.adminToken, json: ["pathPrefixes": ["/blog"]]
                ).status == 200)
            #expect(
                try await w.call(
                    .put, "/v1/domains/example.com/apps/KLMNO12345.com.blog/rules", token: blog,
                    json: ["rules": [["/": "/blog/*"]]]
                ).status == 200)
            let moved = try await w.call(
                .patch, "/v1/domains/example.com", token: w.adminToken, json: ["environment": "staging"])
            #expect(moved.status == 409 && moved.text.contains("KLMNO12345.com.blog"), "\(moved.text)")
            let still = try await w.call(.get, "/v1/domains/example.com", token: w.adminToken)
            #expect(still.object["environment"] as? String == "prod")
            // An environment that still holds domains cannot be removed.
            let removed = try await w.call(
                .put, "/v1/environments", token: w.adminToken, json: ["environments": ["staging", "prod"]])
            #expect(removed.status == 409 && removed.text.contains("in-use"), "\(removed.text)")
        }
    }

    @Test func promotionBringsStagingsPublishedRulesToProd() async throws {
        try await TestWorld.run { w in
            let (shop, roots) = try await Self.setUp(w)
            let prodRoot = try #require(roots["prod"])
            let staging = "/v1/domains/staging.example.com"
            let newRules: [[String: Any]] = [["/": "/shop/*"], ["/": "/deals/*"]]
            #expect(
                try await w.call(.put, "\(staging)/apps/\(ios)/rules", token: shop, json: ["rules": newRules]).status
                    == 200)
            // Staging has an unpublished change: refused unless the drafts are asked for.
            let early = try await w.call(
                .post, "/v1/promotions", token: w.adminToken, json: ["from": "staging", "to": "prod"])
            #expect(early.status == 409 && early.text.contains("unpublished-changes"), "\(early.text)")
            let drafts = try await w.call(
                .post, "/v1/promotions", token: w.adminToken,
                json: ["from": "staging", "to": "prod", "takeDrafts": true])
            #expect(drafts.status == 200, "\(drafts.text)")
            let published = try await w.call(
                .post, "\(staging)/publish", token: w.adminToken, json: ["reason": "deals"])
            #expect(published.status == 201)
            let stagingRevision = try #require((published.object["revision"] as? [String: Any])?["number"] as? Int)

            // A golden URL on prod that the promotion would break: 409 naming it, nothing changes.
            let golden = try await w.call(
                .post, "/v1/domains/example.com/expectations", token: w.adminToken,
                json: ["url": "https://example.com/deals/1", "kind": "opensNone", "team": "shop"])
            #expect(golden.status == 201, "\(golden.text)")
            let before = try Self.file(prodRoot, "apple-app-site-association")
            let broken = try await w.call(
                .post, "/v1/promotions", token: w.adminToken, json: ["from": "staging", "to": "prod", "apply": true])
            #expect(broken.status == 409 && broken.text.contains("https://example.com/deals/1"), "\(broken.text)")
            #expect(try Self.file(prodRoot, "apple-app-site-association") == before)
            let id = try #require((golden.object["id"] as? String) ?? (golden.object["id"] as? Int).map(String.init))
            #expect(
                try await w.call(.delete, "/v1/domains/example.com/expectations/\(id)", token: w.adminToken).status
                    == 204)

            // The plan: per domain, the rule gained per app and the URL whose app changes.
            let plan = try await w.call(
                .post, "/v1/promotions", token: w.adminToken, json: ["from": "staging", "to": "prod"])
            #expect(plan.status == 200, "\(plan.text)")
            let domains = try #require(plan.object["domains"] as? [[String: Any]])
            try #require(domains.count == 1, "\(plan.text)")
            #expect(domains[0]["target"] as? String == "example.com")
            #expect(domains[0]["sourceRevision"] as? Int == stagingRevision)
            let apps = try #require(domains[0]["apps"] as? [[String: Any]])
            #expect(apps.first?["appID"] as? String == ios)
            #expect((apps.first?["gained"] as? [[String: Any]])?.first?["/"] as? String == "/deals/*")
            #expect(plan.text.contains("openerChanges"), "\(plan.text)")
            #expect(plan.object["applied"] as? Bool == false)
            #expect(try Self.file(prodRoot, "apple-app-site-association") == before, "a plan writes nothing")

            // Applied: prod's file gains the rule under the store app's ID, the revision names its source.
            let applied = try await w.call(
                .post, "/v1/promotions", token: w.adminToken, json: ["from": "staging", "to": "prod", "apply": true])
            #expect(applied.status == 200, "\(applied.text)")
            let revision = try #require(
                ((applied.object["domains"] as? [[String: Any]])?.first)?["revision"] as? Int)
            #expect(
                try Self.file(prodRoot, "apple-app-site-association")
                    == #"{"applinks":{"details":[{"appIDs":["\#(ios)"],"components":"#
                    + #"[{"/":"/shop/*"},{"/":"/deals/*"}]}]}}"#
            )
            #expect(try Self.file(prodRoot, "assetlinks.json").contains("/deals/*"))
            let shown = try await w.call(.get, "/v1/domains/example.com/revisions/\(revision)", token: w.adminToken)
            let from = try #require(shown.object["promotedFrom"] as? [String: Any])
            #expect(from["host"] as? String == "staging.example.com" && from["revision"] as? Int == stagingRevision)
            let audit = try await w.call(.get, "/v1/audit?domain=example.com", token: w.adminToken)
            #expect(
                audit.text.contains("domain.promote") && audit.text.contains("staging.example.com"), "\(audit.text)")
        }
    }

    /// A database from before environments, with a team, an app, a domain and its rules, upgraded:
    /// every domain is in `default`, no app has builds, and the file published from it is byte for
    /// byte what the same state rendered before.
    @Test func upgradingChangesNoServedByte() async throws {
        try await TestDatabase.shared.withDatabase(empty: true) { url in
            let all = try MigrationFile.load(from: TestDatabase.migrationsDirectory)
            let logger = Logger(label: "environment-tests")
            let root = try PublishingTests.tempDir()
            try await TestDatabase.shared.withClient(url: url) { database in
                _ = try await database.read(logger: logger) {
                    try await Migrator(files: all.filter { $0.version < 8 }).migrate($0)
                }
                try await database.transaction(logger: logger) { session in
                    _ = try await session.run("INSERT INTO teams (name, display_name) VALUES ('shop', 'Shop')")
                    _ = try await session.run(
                        """
                        INSERT INTO apps (app_id, team_id, services)
                        SELECT \(ios), id, '{applinks}' FROM teams WHERE name = 'shop'
                        """)
                    _ = try await session.run(
                        "INSERT INTO domains (host, web_roots) VALUES ('example.com', \([root]))")
                    _ = try await session.run(
                        """
                        INSERT INTO domain_hosts (host, domain_id, is_primary)
                        SELECT host, id, true FROM domains WHERE host = 'example.com'
                        """)
                    _ = try await session.run(
                        """
                        INSERT INTO rule_sets (domain_id, app_id, rules)
                        SELECT d.id, a.id,
                               '[{"id": "6f1c1a9e-1111-4c1e-9a55-2b8e4b1c0001", "component": {"/": "/shop/*"}}]'
                        FROM domains d, apps a
                        """)
                }
                let upgraded = try await database.read(logger: logger) { try await Migrator(files: all).migrate($0) }
                #expect(upgraded == [8] + all.map(\.version).filter { $0 > 8 })
                let (environment, builds) = try await database.read(logger: logger) { session in
                    (
                        try await session.domain(host: "example.com")?.environment,
                        try await session.builds(ofAppIDs: [ios])
                    )
                }
                #expect(environment == "default" && builds.isEmpty)
                let result = try await PublishingService(database: database, webRootBases: [])
                    .publishDraft(host: "example.com", reason: "after the upgrade", logger: logger)
                #expect(result.created && result.failedTargets == 0)
            }
            #expect(
                try Self.file(root, "apple-app-site-association")
                    == #"{"applinks":{"details":[{"appIDs":["\#(ios)"],"components":[{"/":"/shop/*"}]}]}}"#)
        }
    }

}
