import AASATestSupport
import Foundation
import HTTPTypes
import Testing

/// A cursor is only ever one the server gave: any other key, including a number past its column's
/// type, is 400 `cursor` on every list it pages, and the console's page built on that list is a 400
/// page, not a 500 (a revision cursor of 2^31 reached PostgreSQL as `integer out of range`).
@Suite struct PageCursorTests {
    static func cursor(_ letter: String, _ key: String) -> String {
        Data("\(letter)\(key)".utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    @Test func aCursorPastItsColumnsRangeIsRefusedOnEveryList() async throws {
        try await TestWorld.run { w in
            let domain = try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "shop.test"])
            try #require(domain.status == 201, "\(domain.text)")
            let revisionLists = [
                "/v1/domains/shop.test/revisions", "/v1/domains/shop.test/assetlinks/revisions",
                "/v1/domains/shop.test/webauthn/revisions",
            ]
            // Revision numbers are `integer`, event IDs `bigint`.
            var cases: [(path: String, cursor: String)] = []
            for path in revisionLists {
                for key in ["2147483648", "9223372036854775808", "-1", "0", "1e3"] {
                    cases.append((path, Self.cursor("r", key)))
                }
            }
            for key in ["9223372036854775808", "18446744073709551616", "-9223372036854775809", "0"] {
                cases.append(("/v1/audit", Self.cursor("e", key)))
            }
            for (path, cursor) in cases {
                let reply = try await w.call(.get, "\(path)?cursor=\(cursor)", token: w.adminToken)
                #expect(
                    reply.status == 400 && reply.problemRules == ["cursor"] && reply.problemFields == ["cursor"],
                    "\(path) \(cursor): \(reply.status) \(reply.text)")
            }
            // The ends of each range are still cursors: an empty page, not a refusal.
            for path in revisionLists {
                let last = try await w.call(
                    .get, "\(path)?cursor=\(Self.cursor("r", "2147483647"))", token: w.adminToken)
                #expect(last.status == 200, "\(path): \(last.text)")
            }
            let lastEvent = try await w.call(
                .get, "/v1/audit?cursor=\(Self.cursor("e", "9223372036854775807"))", token: w.adminToken)
            #expect(lastEvent.status == 200, "\(lastEvent.text)")

            let browser = ConsoleTests.Browser(w)
            #expect(try await browser.signIn(w.adminToken).status == 303)
            let page = try await browser.get(
                "/console/domains/shop.test/revisions?cursor=\(Self.cursor("r", "2147483648"))")
            #expect(page.status == 400, "the console's revisions page: \(page.status) \(page.text.prefix(500))")
        }
    }
}
