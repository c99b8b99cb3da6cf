import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation
import HTTPTypes
import Testing

/// Issue 27: answers that speak of both files. A publish says per file whether it made a revision
/// (201 when any did), and suspensions and resumptions name both files' revisions.
@Suite struct BothFilesAnswerTests {
    static func files(_ object: [String: Any]?) -> [String: (revision: Int, created: Bool)] {
        var out: [String: (Int, Bool)] = [:]
        for file in object?["files"] as? [[String: Any]] ?? [] {
            if let name = file["file"] as? String, let number = file["revision"] as? Int,
                let created = file["created"] as? Bool
            {
                out[name] = (number, created)
            }
        }
        return out
    }

    @Test func publishAndSuspensionAnswersNameBothFiles() async throws {
        let root = try PublishingTests.tempDir()
        try await TestWorld.run { w in
            let (shop, _) = try await AndroidTests.setUp(w, root: root)
            let first = try await w.call(
                .post, "/v1/domains/example.com/publish", token: w.adminToken, json: ["reason": "first"])
            #expect(first.status == 201, "\(first.text)")
            #expect(first.object["created"] as? Bool == true)
            #expect(Self.files(first.object)["apple-app-site-association"]?.created == true)
            #expect(Self.files(first.object)["assetlinks.json"]?.created == true)
            // Only the Android app changes: assetlinks.json gets a revision, the AASA does not.
            let android = try await w.call(
                .put, AndroidTests.rules(AndroidTests.shopAndroid), token: shop, json: ["rules": [["/": "/shop/new/*"]]]
            )
            #expect(android.status == 200, "\(android.text)")
            let second = try await w.call(
                .post, "/v1/domains/example.com/publish", token: w.adminToken, json: ["reason": "android only"])
            #expect(second.status == 201, "\(second.text)")
            #expect(second.object["created"] as? Bool == true)
            let files = Self.files(second.object)
            #expect(files["apple-app-site-association"]?.created == false)
            #expect(files["apple-app-site-association"]?.revision == 1)
            #expect(files["assetlinks.json"]?.created == true && files["assetlinks.json"]?.revision == 2)
            // Nothing changed: 200, and no file made a revision.
            let third = try await w.call(
                .post, "/v1/domains/example.com/publish", token: w.adminToken, json: ["reason": "again"])
            #expect(third.status == 200, "\(third.text)")
            #expect(third.object["created"] as? Bool == false)
            #expect(Self.files(third.object).values.allSatisfy { !$0.created })
            // A suspension publishes both files and says so; so does the resumption.
            let suspended = try await w.call(
                .post, "/v1/domains/example.com/suspensions", token: w.adminToken,
                json: ["team": "shop", "reason": "incident"])
            #expect(suspended.status == 201, "\(suspended.text)")
            let published = (suspended.object["published"] as? [[String: Any]])?.first
            let afterSuspend = Self.files(published)
            #expect(afterSuspend["apple-app-site-association"]?.created == true, "\(suspended.text)")
            #expect(afterSuspend["assetlinks.json"]?.created == true, "\(suspended.text)")
            #expect(afterSuspend["assetlinks.json"]?.revision == 3)
            let resumed = try await w.call(.delete, "/v1/domains/example.com/suspensions/shop", token: w.adminToken)
            #expect(resumed.status == 200, "\(resumed.text)")
            let afterResume = Self.files((resumed.object["published"] as? [[String: Any]])?.first)
            #expect(afterResume["assetlinks.json"]?.revision == 4, "\(resumed.text)")
        }
    }
}
