import AASAKernel
import AASAOutbound
import AASARules
import AASAServer
import AASAServices
import Foundation
import HTTPTypes
import Logging
import Testing

/// A web root that refuses writes (read-only mount) or has no space left (a full tmpfs): the
/// publish reports the failure for that target only, the other roots and the revision go ahead,
/// the old file stays whole with no temporary left beside it, and reconciliation completes the
/// target once the disk is writable again.
@Suite(.enabled(if: Tmpfs.available, "needs root and mount privilege (CI has both)"))
struct FilesystemFaultTests {
    static let wellKnown = "/.well-known"

    static func leftovers(_ root: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root + wellKnown)) ?? []).filter { $0.hasSuffix(".tmp") }
    }

    /// Publishes revision 1 to both roots, breaks `broken` with `breakIt`, changes the rules and
    /// publishes revision 2, then checks the outcome, repairs with `repair` and reconciles.
    func publishIntoBrokenRoot(
        breakIt: @Sendable (Tmpfs) async throws -> Void, repair: @Sendable (Tmpfs) async throws -> Void,
        expectedError: String
    ) async throws {
        let good = try PublishingTests.tempDir()
        defer { try? FileManager.default.removeItem(atPath: good) }
        let broken = try await Tmpfs(sizeKiB: 16)
        try await TestWorld.run { w in
            let token = try await PublishingTests.setUp(w, webRoots: [good, broken.path])
            #expect(
                try await w.call(.post, "/v1/domains/example.com/publish", token: token, json: ["reason": "one"]).status
                    == 201)
            let first = try #require(PublishingTests.file(broken.path))

            try await breakIt(broken)
            #expect(
                try await w.call(
                    .put, PublishingTests.rules, token: token, json: ["rules": [["/": "/shop/*"], ["/": "/cart/*"]]]
                ).status == 200)
            let reply = try await w.call(
                .post, "/v1/domains/example.com/publish", token: token, json: ["reason": "two"])
            #expect(reply.status == 201)
            let targets = reply.object["targets"] as? [[String: Any]] ?? []
            #expect(targets.map { $0["ok"] as? Bool } == [true, false])
            let error = targets.last?["error"] as? String ?? ""
            #expect(error.contains(expectedError), "the failure names its cause: \(error)")
            let second = try await w.call(.get, "/v1/domains/example.com/revisions/2/file", token: token).body
            #expect(PublishingTests.file(good) == second)
            #expect(PublishingTests.file(broken.path) == first, "the old file is whole")
            #expect(Self.leftovers(broken.path).isEmpty, "no temporary file left: \(Self.leftovers(broken.path))")
            #expect(
                try await w.call(.get, "/v1/domains/example.com", token: token).object["currentRevision"] as? Int == 2)

            // Still broken: reconciliation reports it and changes nothing.
            let stillBroken = try await w.withDatabase {
                try await PublishingService(database: $0, webRootBases: []).reconcileAll(logger: Logger(label: "t"))
            }
            #expect(stillBroken.failed == ["example.com \(broken.path)"])
            #expect(PublishingTests.file(broken.path) == first)

            try await repair(broken)
            let repaired = try await w.withDatabase {
                try await PublishingService(database: $0, webRootBases: []).reconcileAll(logger: Logger(label: "t"))
            }
            #expect(repaired.rewritten == ["example.com \(broken.path)"] && repaired.failed.isEmpty)
            #expect(PublishingTests.file(broken.path) == second)
            let audit = try await w.call(.get, "/v1/audit?domain=example.com", token: w.adminToken)
            let reconciles = (audit.object["items"] as? [[String: Any]] ?? []).filter {
                $0["action"] as? String == "publish.reconcile"
            }
            // The background Reconciler (every 60 s) may add a pass of its own on a loaded machine.
            #expect(reconciles.count >= 2, "both passes are audited \(reconciles)")
        }
    }

    @Test func readOnlyWebRoot() async throws {
        try await publishIntoBrokenRoot(
            breakIt: { try await $0.remount(readOnly: true) },
            repair: { try await $0.remount(readOnly: false) },
            expectedError: "Read-only file system")
    }

    @Test func fullDisk() async throws {
        try await publishIntoBrokenRoot(
            breakIt: { disk in
                // dd stops with "No space left on device": every page of the tmpfs is taken.
                _ = try await offPool {
                    try Tmpfs.command("/bin/dd", ["if=/dev/zero", "of=\(disk.path)/filler", "bs=4k"])
                }
            },
            repair: { disk in
                try FileManager.default.removeItem(atPath: disk.path + "/filler")
            }, expectedError: "No space left on device")
    }
}
