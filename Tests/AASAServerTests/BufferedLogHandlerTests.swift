import Foundation
import Logging
import Testing

@testable import AASAServer

/// aasad's log lines (issue 43) read as swift-log's `StreamLogHandler` writes them, so what
/// operators grep for and the process tests wait on did not change; a warning is written at once.
@Suite struct BufferedLogHandlerTests {
    @Test func linesHaveStreamLogHandlersShapeAndWarningsAreNotHeldBack() throws {
        var pipe: [Int32] = [0, 0]
        #expect(Foundation.pipe(&pipe) == 0)
        defer {
            close(pipe[0])
            close(pipe[1])
        }
        let output = BufferedLogHandler.Output(descriptor: pipe[1])
        var logger = Logger(label: "aasad") { BufferedLogHandler(label: $0, output: output) }
        logger[metadataKey: "request_id"] = "r1"
        logger.info("request", metadata: ["status": "200", "method": "GET"])
        logger.warning("trouble")
        var buffer = [UInt8](repeating: 0, count: 4096)
        var text = ""
        while !text.contains("trouble\n") {
            let n = read(pipe[0], &buffer, buffer.count)
            #expect(n > 0)
            if n <= 0 { break }
            text += String(decoding: buffer[..<n], as: UTF8.self)
        }
        let lines = text.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "\(lines)")
        let shape = #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} (info|warning) aasad: .*\[AASAServerTests\] .+$/#
        for line in lines { #expect(line.wholeMatch(of: shape) != nil, "\(line)") }
        #expect(
            lines[0].hasSuffix(" aasad: method=GET request_id=r1 status=200 [AASAServerTests] request"), "\(lines[0])")
        #expect(lines[1].hasSuffix(" warning aasad: request_id=r1 [AASAServerTests] trouble"), "\(lines[1])")
    }
}
