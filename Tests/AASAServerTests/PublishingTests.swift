import AASAKernel
import AASAOutbound
import AASARules
import AASAServer
import AASAServices
import AASAStore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import Testing

@Suite struct PublishingTests {
    static let app = "ABCDE12345.com.own.app"
    static let rules = "/v1/domains/example.com/apps/\(app)/rules"

    static func tempDir() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-root-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func file(_ root: String, legacy: Bool = false) -> [UInt8]? {
        FileManager.default.contents(atPath: root + (legacy ? "" : "/.well-known") + "/apple-app-site-association").map
        { [UInt8]($0) }
    }

    /// A team `own` with an app, a grant of `/` on example.com (alias www.example.com) with these web roots.
    @discardableResult
    static func setUp(_ w: TestWorld, webRoots: [String], legacy: Bool = false) async throws -> String {
        try await w.createTeam("own")
        let token = try await w.teamToken("own", scopes: ["write"]).secret
        try #require(try await w.call(.post, "/v1/teams/own/apps", token: token, json: ["appID": app]).status == 201)
        try #require(
            try await w.call(
                .post, "/v1/domains", token: w.adminToken,
                json: [
                    "host": "example.com", "aliases": ["www.example.com"], "webRoots": webRoots,
                    "legacyRootPath": legacy,
                ]
            ).status == 201)
        try #require(
            try await w.call(
                .put, "/v1/domains/example.com/grants/own", token: w.adminToken, json: ["pathPrefixes": ["/"]]
            ).status == 200)
        try #require(try await w.call(.put, rules, token: token, json: ["rules": [["/": "/shop/*"]]]).status == 200)
        return token
    }

    @Test func publishWritesEveryWebRootAndRollsBack() async throws {
        let roots = [try Self.tempDir(), try Self.tempDir()]
        defer { for r in roots { try? FileManager.default.removeItem(atPath: r) } }
        try await TestWorld.run(live: true) { w in
            let token = try await Self.setUp(w, webRoots: roots, legacy: true)
            let first = try await w.call(
                .post, "/v1/domains/example.com/publish", token: token, json: ["reason": "first"])
            #expect(first.status == 201)
            #expect((first.object["revision"] as? [String: Any])?["number"] as? Int == 1)
            let targets = first.object["targets"] as? [[String: Any]] ?? []
            #expect(targets.count == 2 && targets.allSatisfy { $0["ok"] as? Bool == true })
            let v1 = try await w.call(.get, "/v1/domains/example.com/revisions/1/file", token: token)
            #expect(v1.status == 200)
            #expect(v1.headers[.contentType] == "application/json")
            for root in roots {
                #expect(Self.file(root) == v1.body)
                #expect(Self.file(root, legacy: true) == v1.body)
                let leftovers = try FileManager.default.contentsOfDirectory(atPath: root + "/.well-known").filter {
                    $0.hasSuffix(".tmp")
                }
                #expect(leftovers.isEmpty)
            }
            #expect(String(decoding: v1.body, as: UTF8.self).contains("/shop/*"))

            // The same bytes again: no new revision, and it says so.
            let again = try await w.call(
                .post, "/v1/domains/example.com/publish", token: token, json: ["reason": "again"])
            #expect(again.status == 200)
            #expect(again.object["created"] as? Bool == false)

            // A change, published as revision 2 with its diff.
            #expect(try await w.call(.post, Self.rules, token: token, json: ["/": "/news/*"]).status == 201)
            let diffToDraft = try await w.call(.get, "/v1/domains/example.com/diff?from=1&to=draft", token: token)
            #expect(diffToDraft.status == 200)
            #expect(((diffToDraft.object["diff"] as? [String: Any])?["changed"]) as? Bool == true)
            let second = try await w.call(
                .post, "/v1/domains/example.com/publish", token: token, json: ["reason": "news"])
            #expect(second.status == 201)
            let v2 = try await w.call(.get, "/v1/domains/example.com/revisions/2", token: token)
            #expect(
                ((v2.object["diff"] as? [String: Any])?["rules"] as? [[String: Any]])?.first?["appID"] as? String
                    == Self.app)
            #expect(Self.file(roots[0]) != v1.body)

            // Roll back: revision 1's bytes, published as revision 3.
            let rollback = try await w.call(
                .post, "/v1/domains/example.com/revisions/1/rollback", token: token, json: ["reason": "oops"])
            #expect(rollback.status == 201)
            #expect((rollback.object["revision"] as? [String: Any])?["rollbackOf"] as? Int == 1)
            #expect((rollback.object["revision"] as? [String: Any])?["number"] as? Int == 3)
            for root in roots { #expect(Self.file(root) == v1.body) }

            let page = try await w.call(.get, "/v1/domains/example.com/revisions?limit=2", token: token)
            #expect((page.object["items"] as? [[String: Any]])?.compactMap { $0["number"] as? Int } == [3, 2])
            #expect(page.object["nextBefore"] as? Int == 2)
            let audit = try await w.call(.get, "/v1/audit?domain=example.com&limit=3", token: w.adminToken)
            #expect(
                (audit.object["items"] as? [[String: Any]])?.compactMap { $0["action"] as? String } == [
                    "domain.rollback", "domain.publish", "rules.append",
                ])
        }
    }

    @Test func servedFileIsChosenByHost() async throws {
        try await TestWorld.run(live: true) { w in
            let token = try await Self.setUp(w, webRoots: [])
            #expect(
                try await w.call(.post, "/v1/domains/example.com/publish", token: token, json: ["reason": "go"]).status
                    == 201)
            let file = try await w.call(.get, "/v1/domains/example.com/revisions/1/file", token: token)
            let port = try #require(w.client.port)
            let url = "http://127.0.0.1:\(port)/.well-known/apple-app-site-association"
            let served = try await Curl.get(url, host: "example.com")
            #expect(served.status == 200)
            #expect(served.body == file.body)
            #expect(served.headers["content-type"] == "application/json")
            let etag = try #require(served.headers["etag"])
            #expect(try await Curl.get(url, host: "www.example.com:443").body == file.body)
            #expect(try await Curl.get(url, host: "example.com", headers: ["If-None-Match": etag]).status == 304)
            let unknown = try await Curl.get(url, host: "other.example")
            #expect(unknown.status == 404)
            #expect(unknown.headers["location"] == nil)
        }
    }

    @Test func aFailedTargetDoesNotBlockTheOthers() async throws {
        let good = try Self.tempDir()
        let outside = try Self.tempDir()
        let escaping = try Self.tempDir()
        defer { for r in [good, outside, escaping] { try? FileManager.default.removeItem(atPath: r) } }
        try FileManager.default.createSymbolicLink(atPath: escaping + "/.well-known", withDestinationPath: outside)
        try await TestWorld.run(live: true) { w in
            let token = try await Self.setUp(w, webRoots: ["/nonexistent/aasa-root", escaping, good])
            let reply = try await w.call(
                .post, "/v1/domains/example.com/publish", token: token, json: ["reason": "partial"])
            #expect(reply.status == 201)
            let targets = reply.object["targets"] as? [[String: Any]] ?? []
            try #require(targets.map { $0["ok"] as? Bool } == [false, false, true], "\(reply.text)")
            #expect((targets[1]["error"] as? String)?.contains("outside the web root") == true)
            #expect(Self.file(good) != nil)
            #expect(FileManager.default.fileExists(atPath: outside + "/apple-app-site-association") == false)
            #expect(
                try await w.call(.get, "/v1/domains/example.com", token: token).object["currentRevision"] as? Int == 1)
        }
    }

    @Test func reconciliationRewritesMissingAndEditedFiles() async throws {
        let root = try Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestWorld.run(live: true) { w in
            let token = try await Self.setUp(w, webRoots: [root])
            #expect(
                try await w.call(.post, "/v1/domains/example.com/publish", token: token, json: ["reason": "go"]).status
                    == 201)
            let published = try #require(Self.file(root))
            try Data("{\"edited\":true}".utf8).write(
                to: URL(fileURLWithPath: root + "/.well-known/apple-app-site-association"))
            let summary = try await w.withDatabase { db in
                try await PublishingService(database: db, webRootBases: []).reconcileAll(logger: Logger(label: "t"))
            }
            #expect(summary.rewritten.count == 1)
            #expect(Self.file(root) == published)
            try FileManager.default.removeItem(atPath: root + "/.well-known/apple-app-site-association")
            _ = try await w.withDatabase { db in
                try await PublishingService(database: db, webRootBases: []).reconcileAll(logger: Logger(label: "t"))
            }
            #expect(Self.file(root) == published)
            let clean = try await w.withDatabase { db in
                try await PublishingService(database: db, webRootBases: []).reconcileAll(logger: Logger(label: "t"))
            }
            #expect(clean.rewritten.isEmpty && clean.checked == 1)
            let audit = try await w.call(.get, "/v1/audit?domain=example.com&limit=1", token: w.adminToken)
            #expect((audit.object["items"] as? [[String: Any]])?.first?["action"] as? String == "publish.reconcile")
        }
    }

    @Test func webRootsMustLieInsideTheConfiguredBases() async throws {
        try await TestWorld.run(live: true, webRootBases: ["/srv/aasa"]) { w in
            let outside = try await w.call(
                .post, "/v1/domains", token: w.adminToken, json: ["host": "a.example", "webRoots": ["/etc"]])
            #expect(outside.status == 422)
            #expect(outside.problemFields == ["/webRoots/0"])
            #expect(
                try await w.call(
                    .post, "/v1/domains", token: w.adminToken,
                    json: ["host": "b.example", "webRoots": ["/srv/aasa-evil/x"]]
                ).status == 422)
            #expect(
                try await w.call(
                    .post, "/v1/domains", token: w.adminToken,
                    json: ["host": "c.example", "webRoots": ["/srv/aasa/c.example"]]
                ).status == 201)
            #expect(
                try await w.call(
                    .post, "/v1/domains", token: w.adminToken,
                    json: ["host": "d.example", "webRoots": ["/srv/aasa/../etc"]]
                ).status == 422)
        }
    }

    @Test func whoMayPublish() async throws {
        try await TestWorld.run(live: true) { w in
            try await Self.setUp(w, webRoots: [])
            let read = try await w.teamToken("own", scopes: ["read"]).secret
            try await w.createTeam("other")
            let other = try await w.teamToken("other", scopes: ["write"]).secret
            #expect(
                try await w.call(.post, "/v1/domains/example.com/publish", token: read, json: ["reason": "x"]).status
                    == 403)
            #expect(
                try await w.call(.post, "/v1/domains/example.com/publish", token: other, json: ["reason": "x"]).status
                    == 403)
            #expect(
                try await w.call(.post, "/v1/domains/example.com/publish", token: w.adminToken, json: ["reason": " "])
                    .status == 422)
            #expect(
                try await w.call(.post, "/v1/domains/example.com/publish", token: w.adminToken, json: ["reason": "x"])
                    .status == 201)
            #expect(
                try await w.call(
                    .post, "/v1/domains/example.com/revisions/9/rollback", token: w.adminToken, json: ["reason": "x"]
                ).status == 404)
        }
    }

    @Test func matchAnswersForPublishedDraftAndWildcardParent() async throws {
        try await TestWorld.run(live: true) { w in
            let token = try await Self.setUp(w, webRoots: [])
            // Not yet published: the draft answers, the published file does not exist.
            #expect(
                try await w.call(.post, "/v1/match", token: token, json: ["url": "https://example.com/shop/1"]).status
                    == 404)
            let draft = try await w.call(
                .post, "/v1/match", token: token, json: ["url": "https://example.com/shop/1", "source": "draft"])
            #expect(draft.object["appID"] as? String == Self.app)
            let rule = draft.object["rule"] as? [String: Any]
            #expect(rule?["team"] as? String == "own")
            #expect(rule?["ruleID"] as? String != nil)
            #expect(
                try await w.call(.post, "/v1/domains/example.com/publish", token: token, json: ["reason": "go"]).status
                    == 201)
            let published = try await w.call(
                .post, "/v1/match", token: token, json: ["url": "https://www.example.com/shop/1"])
            #expect(published.object["appID"] as? String == Self.app)
            #expect(published.object["revision"] as? Int == 1)
            let miss = try await w.call(.post, "/v1/match", token: token, json: ["url": "https://example.com/other"])
            #expect(miss.object["appID"] == nil)
            #expect((miss.object["decisions"] as? [[String: Any]])?.first?["decision"] as? String == "none")
            let wildcard = try await w.call(
                .post, "/v1/match", token: token, json: ["url": "https://shop.example.com/shop/1"])
            #expect(wildcard.object["wildcardParent"] as? String == "example.com")
            #expect(try await w.call(.post, "/v1/match", token: token, json: ["url": "not a url"]).status == 422)
        }
    }

    @Test func autoPublishFollowsEveryValidChange() async throws {
        let root = try Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestWorld.run(live: true) { w in
            let token = try await Self.setUp(w, webRoots: [root])
            #expect(
                try await w.call(.patch, "/v1/domains/example.com", token: w.adminToken, json: ["autoPublish": true])
                    .status == 200)
            #expect(try await w.call(.post, Self.rules, token: token, json: ["/": "/auto/*"]).status == 201)
            #expect(Self.file(root).map { String(decoding: $0, as: UTF8.self) }?.contains("/auto/*") == true)
        }
    }
}
