import AASAAPI
// The API's answers written by AnswerEncoder (the hot reads' own routes, issue 23) against the
// baseline that writes them otherwise: Foundation's JSONEncoder configured as the OpenAPI runtime
// configures it (sorted keys, pretty printed, slashes unescaped, ISO 8601 dates). Both encode the
// same values in the same run, and each answer's bytes are checked equal before timing.
//   aasa-bench-encoder [seconds-per-measure] [apps|audit]
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServer
import AASAServices
import Foundation
import OpenAPIRuntime

let seconds = Double(CommandLine.arguments.dropFirst().first ?? "") ?? 2
let only = CommandLine.arguments.dropFirst(2).first

/// Encodings per second of `body`, over at least `seconds`.
func rate(_ body: () throws -> Int) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    var done = 0
    var sink = 0
    repeat {
        for _ in 0..<100 { sink &+= try body() }
        done += 100
    } while clock.now - start < .seconds(seconds)
    let elapsed = clock.now - start
    if sink == 42 { print("") }
    return Double(done) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

let now = Date(timeIntervalSince1970: 1_795_000_000)
let apps = Components.Schemas.AppList(
    items: (0..<20).map { i in
        Components.Schemas.App(
            appID: "ABCDE12345.com.example.app\(i)", team: "bench", platform: .ios, services: [.applinks],
            createdAt: now, updatedAt: now, version: Int64(i + 1))
    })
let payloadText =
    #"{"rules":[{"/":"/shop/*","comment":"the shop"},{"/":"/help/*","?":{"lang":"??"}},"#
    + #"{"/":"/news/*","exclude":true}]}"#
let payload = try JSONParser.parse(Array(payloadText.utf8)).value
let audit = Components.Schemas.AuditPage(
    items: try (0..<50).map { i in
        Components.Schemas.AuditEvent(
            id: String(i), at: now, actor: .init(tokenID: UUID().uuidString.lowercased(), name: "ci", team: "bench"),
            team: "bench", domain: "example.com", appID: "ABCDE12345.com.example.app", action: "rules.replace",
            entityType: "rules", entityID: "example.com/ABCDE12345.com.example.app",
            before: try OpenAPIValueContainer(json: payload), after: try OpenAPIValueContainer(json: payload),
            requestId: UUID().uuidString)
    }, nextCursor: nil)

print("| answer | bytes | Foundation JSONEncoder per second | AnswerEncoder per second | ratio |")
print("|---|---|---|---|---|")
func compare(_ name: String, _ value: some Encodable) throws {
    let foundation = AnswerEncoder.runtimeEncoder()
    let ours = AnswerEncoder()
    let bytes = try ours.bytes(value)
    guard bytes == Array(try foundation.encode(value)) else { fatalError("\(name): the encoders disagree") }
    let baseline = try rate { try foundation.encode(value).count }
    let measured = try rate { try ours.bytes(value).count }
    print(
        String(
            format: "| %@ | %d | %.0f | %.0f | %.1f× |", name, bytes.count, baseline, measured, measured / baseline))
}
if only != "audit" { try compare("`GET /v1/teams/{team}/apps`, 20 apps", apps) }
if only != "apps" { try compare("`GET /v1/audit`, 50 events with before/after", audit) }
