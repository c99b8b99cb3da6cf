// libFuzzer entry point for the parser, validator, renderer and matcher (scripts/fuzz builds it
// with `swiftc -sanitize=fuzzer,address` together with AASAModel's sources).
// Properties checked on every input that parses: rendering is stable (render ∘ parse ∘ render is
// a fixed point) and the matcher answers the same for the original and the rendered document.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDocument(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let parsed = AASAParser.parse(bytes)
    guard let document = parsed.document else { return 0 }
    _ = AASAValidator.validate(document, servedByteCount: bytes.count, options: .init(analyzeRules: size < 2_000))
    let rendered = AASARenderer.render(document)
    guard let again = AASAParser.parse(rendered).document else { fatalError("rendered output does not parse") }
    let twice = AASARenderer.render(again)
    if twice != rendered { fatalError("rendering is not stable") }
    let original = AASAMatcher(document)
    let copy = AASAMatcher(again)
    for url in [
        "https://example.com/", "https://example.com/a/b?x=1#f", "https://example.com/%E2%82%AC/x?q=a&q=b",
        "https://example.com/en/shop/1", "https://example.com/A/B/",
    ] {
        if original.resolve(url: url, domain: "example.com") != copy.resolve(url: url, domain: "example.com") {
            fatalError("rendering changed who opens \(url)")
        }
    }
    return 0
}
