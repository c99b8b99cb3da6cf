import AASAModel
import AASASignedFile
import Testing

/// The iOS 8 CMS-signed form (issue 20): the signed JSON taken out, the signer named, nothing trusted.
@Suite struct SignedFileTests {
    @Test func theCorpusSignedFileUnwrapsToItsJSON() throws {
        let bytes = try SharedData.bytes("corpus/artsy--force--public-root-signed-cms.json")
        #expect(SignedFile.looksSigned(bytes))
        let file = try SignedFile.unwrap(bytes)
        let document = try #require(AASAParser.parse(file.content).document)
        #expect((document.applinks?.details?.count ?? 0) == 3)
        #expect(file.signer?.contains("CN=") == true, "\(String(describing: file.signer))")
        #expect(file.signerNotAfter?.hasSuffix("Z") == true, "\(String(describing: file.signerNotAfter))")
    }

    /// Issue 41, finding 3: `30 80` five thousand times (10 KB) overflowed the hand-written
    /// reader's stack and killed aasad. Nesting past swift-asn1's bound is a refusal.
    @Test func deeplyNestedIndefiniteLengthsAreRefusedNotACrash() {
        for depth in [60, 5_000, 50_000] {
            let bytes = Array([[UInt8]](repeating: [0x30, 0x80], count: depth).joined())
            #expect(SignedFile.looksSigned(bytes))
            #expect(throws: SignedFile.Failure.self) { try SignedFile.unwrap(bytes) }
        }
        // The same with its end-of-contents octets, well-formed but far too deep.
        let closed =
            Array([[UInt8]](repeating: [0x30, 0x80], count: 5_000).joined())
            + [UInt8](repeating: 0, count: 10_000)
        #expect(throws: SignedFile.Failure.self) { try SignedFile.unwrap(closed) }
    }

    /// The corpus file read again in BER's indefinite-length form (as some signers streamed it):
    /// the same content and signer.
    @Test func anIndefiniteLengthEncodingReadsTheSame() throws {
        let bytes = try SharedData.bytes("corpus/artsy--force--public-root-signed-cms.json")
        let definite = try SignedFile.unwrap(bytes)
        // ContentInfo as 30 80 … 00 00 around the same members.
        let header = bytes[1] > 0x80 ? 2 + Int(bytes[1] & 0x7F) : 2
        let indefinite = [0x30, 0x80] + Array(bytes[header...]) + [0, 0]
        #expect(try SignedFile.unwrap(indefinite) == definite)
    }

    @Test func jsonAndGarbageAreNotSigned() {
        #expect(!SignedFile.looksSigned(Array(#"{"applinks":{}}"#.utf8)))
        #expect(throws: SignedFile.Failure.self) { try SignedFile.unwrap([0x30, 0x82, 0x00, 0x10, 0x01]) }
        #expect(throws: SignedFile.Failure.self) { try SignedFile.unwrap([0x30, 0x80, 0x06, 0x01]) }
    }
}
