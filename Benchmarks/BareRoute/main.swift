// The API benchmark's baseline (../shared/benchmark-baselines.md): a bare Hummingbird route that
// answers fixed JSON, with no middleware, no database and no authentication. The bytes are the
// body the measured API read returns, so both send the same amount.
//
//   aasa-bench-bare --port 18090 --body FILE
import Foundation
import Hummingbird

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}
let port = Int(option("--port") ?? "18090") ?? 18090
let body = try option("--body").map { try Data(contentsOf: URL(fileURLWithPath: $0)) } ?? Data(#"{"items":[]}"#.utf8)
let bytes = ByteBuffer(bytes: body)

let router = Router()
router.get("/bare") { _, _ in
    Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: bytes))
}
let app = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "bare"))
try await app.runService()
