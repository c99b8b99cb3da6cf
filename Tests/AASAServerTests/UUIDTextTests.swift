import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import PropertyBased
import Testing

/// `UUIDText` reads what Foundation's `UUID(uuidString:)` reads, without `sscanf`.
@Suite struct UUIDTextTests {
    @Test func randomUUIDsReadAsFoundationReadsThem() async {
        await propertyCheck(count: 1000, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var rng = Xoshiro(seed: (seed, ~seed, seed &* 31, 7))
            let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let uuid = UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                    bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
            for text in [uuid.uuidString, uuid.uuidString.lowercased()] {
                #expect(UUIDText.parse(text) == uuid)
                #expect(UUIDText.parse(text) == UUID(uuidString: text))
                #expect(UUIDText.parse(undashed: text.replacingOccurrences(of: "-", with: "")) == uuid)
            }
        }
    }

    @Test func whatIsNotAUUIDIsRefused() {
        let good = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
        let bad = [
            "", good.dropLast().description, good + "0", good.replacingOccurrences(of: "-", with: "_"),
            "0f1e2d3c4b5a-6978-8796-a5b4c3d2e1f0-", "0f1e2d3g-4b5a-6978-8796-a5b4c3d2e1f0",
            " f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", "+f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
            "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f\u{0660}",
        ]
        for text in bad {
            #expect(UUIDText.parse(text) == nil, "\(text)")
        }
        #expect(UUIDText.parse(good) == UUID(uuidString: good))
        #expect(UUIDText.parse(undashed: "0f1e2d3c4b5a69788796a5b4c3d2e1fz") == nil)
        #expect(UUIDText.parse(undashed: "0f1e2d3c4b5a69788796a5b4c3d2e1f") == nil)
    }
}
