import AASAModel
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

    @Test func jsonAndGarbageAreNotSigned() {
        #expect(!SignedFile.looksSigned(Array(#"{"applinks":{}}"#.utf8)))
        #expect(throws: SignedFile.Failure.self) { try SignedFile.unwrap([0x30, 0x82, 0x00, 0x10, 0x01]) }
        #expect(throws: SignedFile.Failure.self) { try SignedFile.unwrap([0x30, 0x80, 0x06, 0x01]) }
    }
}
