import AASAModel
import Foundation
import OpenAPIRuntime
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServer
@testable import AASAServices

/// Our JSON into the runtime's free-form containers (audit payloads, reports, diffs) through
/// `JSONValueDecoder`: what the API then encodes is the same JSON, numbers and nesting included.
@Suite struct FreeFormJSONTests {
    @Test func theContainersEncodeTheJSONTheyWereGiven() throws {
        let text = #"""
            {"a":[1,-2.5,1e3,true,false,null,"x"],"b":{"c":{"d":[]},"e":{}},"f":"\u00e9\/","g":9007199254740993}
            """#
        let json = try JSONParser.parse(Array(text.utf8)).value
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let encoded = try encoder.encode(try OpenAPIValueContainer(json: json))
        let expected = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! NSDictionary
        let got = try JSONSerialization.jsonObject(with: encoded) as! NSDictionary
        #expect(got == expected, "\(String(decoding: encoded, as: UTF8.self))")
        #expect(String(decoding: encoded, as: UTF8.self).contains(#""g":9007199254740993"#), "an Int stays exact")

        // A key given twice: the last one counts (as the decoder it replaced did).
        let twice = try JSONParser.parse(Array(#"{"k":1,"k":2}"#.utf8)).value
        let object = try OpenAPIObjectContainer(json: twice)
        #expect(String(decoding: try encoder.encode(object), as: UTF8.self) == #"{"k":2}"#)
        #expect(throws: DecodingError.self) { try OpenAPIObjectContainer(json: .array([])) }
    }
}
