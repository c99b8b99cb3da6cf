import Foundation
import Testing
import Yams

/// The refusals the middleware gives any request are documented on every operation, so a client
/// generated from openapi.yaml (and schemathesis) expects them: 400 from `RequestInputMiddleware`
/// (U+0000 in the path or any query parameter, a header over its bound) and 413 from the body
/// limit on every operation that takes a body. CI's contract test once found `GET /v1/cli/aasactl`
/// answering an undocumented 400 to a query parameter with U+0000.
@Suite struct DocumentedRefusalsTests {
    @Test func everyOperationDocumentsTheRefusalsEveryRequestMayGet() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("openapi.yaml")
        let document = try #require(try Yams.load(yaml: String(contentsOf: url, encoding: .utf8)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var operations = 0
        for (path, item) in paths {
            for method in ["get", "put", "post", "patch", "delete"] {
                guard let operation = item[method] as? [String: Any] else { continue }
                operations += 1
                let responses = operation["responses"] as? [String: Any] ?? [:]
                #expect(responses["400"] != nil, "\(method.uppercased()) \(path) documents no 400")
                if operation["requestBody"] != nil {
                    #expect(responses["413"] != nil, "\(method.uppercased()) \(path) takes a body, documents no 413")
                }
            }
        }
        #expect(operations > 90, "the operations were read")
    }
}
