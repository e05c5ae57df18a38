import Testing

@testable import NALStubbing

@Suite("A listener keeps the bytes of repeated answers, within its bound")
struct ListenerAnswerCacheTests {
    @Test("past its capacity, the kept answers are dropped, not grown without end")
    func bounded() {
        let cache = ListenerAnswerCache()
        for stub in 0..<UInt64(ListenerAnswerCache.capacity * 3) {
            let key = ListenerAnswerCache.Key(stub: stub, isHead: false, isHTTP10: false, keepsAlive: true)
            cache.keep(([UInt8(truncatingIfNeeded: stub)], true), for: key)
            #expect(cache.answer(for: key)?.bytes == [UInt8(truncatingIfNeeded: stub)])
        }
        #expect(cache.count <= ListenerAnswerCache.capacity)
        // A key differing in any part is another answer.
        let key = ListenerAnswerCache.Key(stub: 1, isHead: false, isHTTP10: false, keepsAlive: true)
        cache.keep(([1], true), for: key)
        for other in [
            ListenerAnswerCache.Key(stub: 1, isHead: true, isHTTP10: false, keepsAlive: true),
            ListenerAnswerCache.Key(stub: 1, isHead: false, isHTTP10: true, keepsAlive: true),
            ListenerAnswerCache.Key(stub: 1, isHead: false, isHTTP10: false, keepsAlive: false),
        ] {
            #expect(cache.answer(for: other) == nil)
        }
    }
}
