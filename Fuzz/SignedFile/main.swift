// libFuzzer entry point for the signed (CMS) AASA reader: scripts/fuzz builds it through SwiftPM
// with `--sanitize=fuzzer --sanitize=address` (AASA_FUZZ=1 adds this target to Package.swift),
// since the reader stands on swift-asn1 and swift-certificates, which swiftc alone cannot compile.
// Hostile input must never crash, hang or grow: an origin being adopted sends what it likes.
// Checked on every input: unwrap ends with a file or a refusal, and a file's content is never
// larger than the input it came from.
import AASASignedFile

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSignedFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = SignedFile.looksSigned(bytes)
    if let file = try? SignedFile.unwrap(bytes), file.content.count > bytes.count {
        fatalError("unwrapped \(file.content.count) bytes of content from \(bytes.count) bytes")
    }
    return 0
}
