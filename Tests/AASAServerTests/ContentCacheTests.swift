import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServer
@testable import AASAServices

/// The cache behind validated renders and revision diffs: an answer is found by its content's key
/// alone, and the bounds forget the oldest first.
@Suite struct ContentCacheTests {
    @Test func keysTellContentApartAndBoundsForgetTheOldest() {
        // Length prefixes: ["ab", "c"] and ["a", "bc"] are different inputs.
        #expect(
            ContentCache<Int>.key([Array("ab".utf8), Array("c".utf8)])
                != ContentCache<Int>.key([Array("a".utf8), Array("bc".utf8)]))
        let cache = ContentCache<Int>(maxEntries: 2, maxBytes: 100)
        let (a, b, c) = (ContentCache<Int>.key([[1]]), ContentCache<Int>.key([[2]]), ContentCache<Int>.key([[3]]))
        cache.remember(1, bytes: 10, key: a)
        cache.remember(2, bytes: 10, key: b)
        #expect(cache[a] == 1 && cache[b] == 2)
        cache.remember(3, bytes: 10, key: c)
        #expect(cache[a] == nil && cache[b] == 2 && cache[c] == 3, "a third entry forgets the first")
        cache.remember(4, bytes: 95, key: a)
        #expect(cache[b] == nil && cache[c] == nil && cache[a] == 4, "over the byte bound, older entries go")
    }
}
