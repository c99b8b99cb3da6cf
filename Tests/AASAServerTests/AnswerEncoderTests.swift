import AASAAPI
import AASAModel
import Foundation
import OpenAPIRuntime
import PropertyBased
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServer
@testable import AASAServices

/// `AnswerEncoder` writes exactly the bytes the OpenAPI runtime's `JSONEncoder` writes with this
/// server's configuration, so a read answered by our own route is byte-identical to the generated one.
@Suite struct AnswerEncoderTests {
    static func foundation(_ value: some Encodable) throws -> [UInt8] {
        Array(try AnswerEncoder.runtimeEncoder().encode(value))
    }

    static func expectSameBytes(_ value: some Encodable, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let ours = try AnswerEncoder().bytes(value)
        let theirs = try foundation(value)
        #expect(
            ours == theirs,
            """
            ours:
            \(String(decoding: ours, as: UTF8.self))
            Foundation's:
            \(String(decoding: theirs, as: UTF8.self))
            """,
            sourceLocation: sourceLocation)
    }

    @Test func anAppListIsWrittenAsTheRuntimeWritesIt() throws {
        let ios = Components.Schemas.App(
            appID: "ABCDE12345.com.example.app", team: "shop", platform: .ios, services: [.applinks, .webcredentials],
            createdAt: Date(timeIntervalSince1970: 1_790_000_000.75), updatedAt: Date(timeIntervalSince1970: 0),
            version: 9_007_199_254_740_993)
        let android = Components.Schemas.App(
            appID: "com.example.app", team: "shop", platform: .android, services: [.applinks],
            fingerprints: [String(repeating: "AB:", count: 31) + "CD"], rulesFrom: ios.appID,
            createdAt: Date(timeIntervalSince1970: -86_400.5), updatedAt: Date(timeIntervalSince1970: 1e9),
            version: 1, warnings: [.init(code: "G001", path: "/applinks", message: "a \"quoted\" /path", team: "shop")])
        let list = Components.Schemas.AppList(items: [ios, android])
        try Self.expectSameBytes(list)
        try Self.expectSameBytes(Components.Schemas.AppList(items: []))
    }

    @Test func freeFormValuesKeepTheirNumbersEscapesAndKeyOrder() throws {
        let text = #"""
            {"z":[1,-2.5,1e3,0.1,1e-7,1e21,-0.0,true,false,null,"x"],"B":{"c":{"d":[]},"e":{}},
             "a_":"\u00e9/\"\\\b\f\n\r\t\u0001\u007f\u2028",
             "aB":9007199254740993,"é":1,"a10":[[],{}],"a9":{"k":[{"deep":[1]}]}}
            """#
        let json = try JSONParser.parse(Array(text.utf8)).value
        try Self.expectSameBytes(try OpenAPIValueContainer(json: json))
        try Self.expectSameBytes(try OpenAPIObjectContainer(json: json))
        try Self.expectSameBytes(["top": 1.5, "whole": 2.0, "float": Double(Float(0.1))])
        try Self.expectSameBytes("a string alone")
    }

    @Test func plainValuesAreWhatJSONSerializationReads() throws {
        let text = #"{"a":[1,2.5,"x",true,null],"b":{"c":{}},"d":"é"}"#
        let value = try OpenAPIValueContainer(json: try JSONParser.parse(Array(text.utf8)).value)
        let plain = try AnswerEncoder().plainValue(value)
        let expected = try JSONSerialization.jsonObject(with: Data(text.utf8))
        // Compared as JSONSerialization writes each back: the same types, values and nesting.
        let write = { (object: Any) in try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) }
        let (ours, theirs) = (try write(plain), try write(expected))
        #expect(
            ours == theirs, "\(String(decoding: ours, as: UTF8.self)) vs \(String(decoding: theirs, as: UTF8.self))")
        #expect((plain as? [String: Any])?["d"] as? String == "é")
        #expect(((plain as? [String: Any])?["a"] as? [Any])?.first as? Int == 1)
    }

    /// Year 1, 999, 10000 (the transcoder's), and the edges of a day, a leap year and a second (ours).
    @Test func datesAtTheEdgesAreWrittenAsTheTranscoderWritesThem() throws {
        let edges = [-62_135_596_800.0, -30_610_224_001, 253_402_300_800, 0, -0.5, 951_782_400, 951_868_799.999]
        // Within half a millisecond of the next second: the formatter rounds to the millisecond first.
        for seconds in edges + [3_380_000_052.9996, 3_380_000_052.9994, -0.0004, -0.0006] {
            try Self.expectSameBytes([Date(timeIntervalSince1970: seconds)])
        }
        #expect(InternetDateTime.string(Date(timeIntervalSince1970: 253_402_300_800)) == nil, "year 10000")
        #expect(InternetDateTime.string(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
    }

    @Test func aNumberJSONCannotHoldIsRefused() {
        #expect(throws: EncodingError.self) { try AnswerEncoder().bytes(["x": Double.nan]) }
        #expect(throws: EncodingError.self) { try AnswerEncoder().bytes([Double.infinity]) }
    }

    /// Random free-form documents and random doubles: the same bytes as Foundation's every time.
    @Test func randomAnswersAreByteIdentical() async {
        await propertyCheck(count: 1000, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var rng = Xoshiro(seed: (seed, ~seed, seed &* 31, 1))
            let json = Self.randomJSON(&rng, depth: 0)
            let container = try OpenAPIValueContainer(json: json)
            try Self.expectSameBytes(container)
            let double = Double(bitPattern: rng.next())
            if double.isFinite { try Self.expectSameBytes([double]) }
            // Dates from 1834 to 2106, to the eighth of a second, and any instant of this century.
            let eighths = Double(Int64.random(in: -1 << 35...1 << 35, using: &rng)) / 8
            let instant = Double.random(in: 946_684_800..<4_102_444_800, using: &rng)
            try Self.expectSameBytes([Date(timeIntervalSince1970: eighths), Date(timeIntervalSince1970: instant)])
        }
    }

    static func randomJSON(_ rng: inout Xoshiro, depth: Int) -> JSONValue {
        let keys = ["a", "B", "b", "a_", "aB", "é", "x10", "x9", "", " ", "/", "\u{1}"]
        let strings = ["", "x", "/path/*", "é\u{2028}", "\"\\", "\n\t", "<script>"]
        switch Int.random(in: 0..<(depth > 3 ? 4 : 7), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .number(String(Int.random(in: -1_000_000...1_000_000, using: &rng)))
        case 3: return .string(strings.randomElement(using: &rng)!)
        case 4: return .number(String(Double.random(in: -1e6...1e6, using: &rng)))
        case 5:
            return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in randomJSON(&rng, depth: depth + 1) })
        default:
            return .object(
                JSONObject(
                    (0..<Int.random(in: 0...5, using: &rng)).map { _ in
                        JSONMember(keys.randomElement(using: &rng)!, randomJSON(&rng, depth: depth + 1))
                    }))
        }
    }
}
