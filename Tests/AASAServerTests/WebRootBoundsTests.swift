import AASAKernel
import AASAOutbound
import AASARules
import AASAServer
import AASAServices
import Foundation
import HTTPTypes
import Logging
import Testing

/// Issue 15, finding 6: web roots stay where the configured bases say, on the real path at every
/// write and every clean-up, and no two domains write one web root.
@Suite struct WebRootBoundsTests {
    static func tempDir(_ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "aasa-bounds-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func setUp(_ w: TestWorld, root: String) async throws -> TestWorld.Reply {
        try await w.createTeam("own")
        try #require(
            try await w.call(
                .post, "/v1/teams/own/apps", token: w.adminToken, json: ["appID": "ABCDE12345.com.own.app"]
            ).status == 201)
        try #require(
            try await w.call(
                .post, "/v1/domains", token: w.adminToken, json: ["host": "example.com", "webRoots": [root]]
            ).status == 201)
        try #require(
            try await w.call(
                .put, "/v1/domains/example.com/grants/own", token: w.adminToken, json: ["pathPrefixes": ["/"]]
            ).status == 200)
        try #require(
            try await w.call(
                .put, "/v1/domains/example.com/apps/ABCDE12345.com.own.app/rules", token: w.adminToken,
                json: ["rules": [["/": "/x/*"]]]
            ).status == 200)
        return try await w.call(.post, "/v1/domains/example.com/publish", token: w.adminToken, json: ["reason": "r1"])
    }

    /// A web root inside the bases as written, that is a symlink to a directory outside them:
    /// registration cannot see it, the write does, and refuses it.
    @Test func aSymlinkedRootLeavingTheBasesIsNotWrittenThrough() async throws {
        let base = try Self.tempDir("base")
        let outside = try Self.tempDir("outside")
        defer {
            try? FileManager.default.removeItem(at: base)
            try? FileManager.default.removeItem(at: outside)
        }
        let link = base.appendingPathComponent("site").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: outside.path)
        try await TestWorld.run(webRootBases: [base.path]) { w in
            let publish = try await Self.setUp(w, root: link)
            #expect(publish.status == 201)
            let target = (publish.object["targets"] as? [[String: Any]])?.first
            #expect(target?["ok"] as? Bool == false)
            #expect((target?["error"] as? String)?.contains("outside") == true)
            #expect(!FileManager.default.fileExists(atPath: outside.path + "/.well-known/apple-app-site-association"))
        }
    }

    /// The reconciler's clean-up of a killed writer's temporary files goes where the writer goes:
    /// not through a `.well-known` symlink that leaves the root.
    @Test func cleanUpDoesNotFollowAWellKnownSymlinkOutOfTheRoot() async throws {
        let root = try Self.tempDir("root")
        let elsewhere = try Self.tempDir("elsewhere")
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: elsewhere)
        }
        try await TestWorld.run { w in
            #expect(try await Self.setUp(w, root: root.path).status == 201)
            // Someone replaces .well-known with a symlink to a directory holding a file of the temporary's shape.
            try FileManager.default.removeItem(atPath: root.path + "/.well-known")
            try FileManager.default.createSymbolicLink(
                atPath: root.path + "/.well-known", withDestinationPath: elsewhere.path)
            let victim = elsewhere.path + "/.apple-app-site-association.0000.tmp"
            _ = FileManager.default.createFile(atPath: victim, contents: Data("keep".utf8))
            _ = try await w.withDatabase { database in
                try await PublishingService(database: database, webRootBases: []).reconcileAll(
                    logger: .init(label: "test"))
            }
            #expect(FileManager.default.fileExists(atPath: victim), "a file outside the root was deleted")
        }
    }

    /// Issue 28, gap 2: `aasad publish --all` (Reconciliation.runOnce) writes only inside the
    /// configured bases, as the server does: a stored root outside them is a failed target.
    @Test func reconciliationFromTheCommandLineKeepsToTheBases() async throws {
        let root = try Self.tempDir("root")
        let base = try Self.tempDir("base")
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: base)
        }
        try await TestWorld.run { w in
            #expect(try await Self.setUp(w, root: root.path).status == 201)
            try FileManager.default.removeItem(atPath: root.path + "/.well-known/apple-app-site-association")
            let summary = try await w.withDatabase { database in
                try await PublishingService(database: database, webRootBases: [base.path]).reconcileAll(
                    logger: .init(label: "test"))
            }
            #expect(summary.failed.count == 1 && summary.rewritten.isEmpty, "\(summary.failed)")
            #expect(!FileManager.default.fileExists(atPath: root.path + "/.well-known/apple-app-site-association"))
            // Within the bases (none configured: any), the same run rewrites it.
            let again = try await w.withDatabase { database in
                try await PublishingService(database: database, webRootBases: []).reconcileAll(
                    logger: .init(label: "test"))
            }
            #expect(again.rewritten.count == 1, "\(again.failed)")
            #expect(FileManager.default.fileExists(atPath: root.path + "/.well-known/apple-app-site-association"))
        }
    }

    @Test func twoDomainsCannotShareAWebRoot() async throws {
        let root = try Self.tempDir("shared")
        defer { try? FileManager.default.removeItem(at: root) }
        try await TestWorld.run { w in
            try #require(
                try await w.call(
                    .post, "/v1/domains", token: w.adminToken, json: ["host": "a.example", "webRoots": [root.path]]
                ).status == 201)
            let second = try await w.call(
                .post, "/v1/domains", token: w.adminToken, json: ["host": "b.example", "webRoots": [root.path]])
            #expect(second.status == 409)
            #expect(second.problemRules == ["shared-web-root"])
            try #require(
                try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "b.example"]).status == 201)
            let moved = try await w.call(
                .patch, "/v1/domains/b.example", token: w.adminToken, json: ["webRoots": [root.path + "/"]])
            #expect(moved.status == 409, "the same directory, written with a trailing slash")
        }
    }
}
