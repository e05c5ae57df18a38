import Foundation
import Testing

@testable import NALMiddleware

@Suite("A cache folder's entry files")
struct CacheEntryFileTests {
    @Test(
        "a Vary value that starts with a combining mark reads back as itself, not as an absent value",
        arguments: ["\u{301}x", "\u{301}", "", "plain", "+"])
    func varyingValuesRoundTrip(value: String) {
        let encoded = CacheEntryFile.encode(
            fields: [("Content-Type", "text/plain")], varying: [("accept-language", value), ("x-absent", nil)],
            body: Data("ok".utf8), keyDigest: "k")
        #expect(CacheEntryFile.decodesAndRoundTrips(encoded, keyDigest: "k") == true)
        let decoded = CacheEntryFile.decode(encoded, keyDigest: "k")
        #expect(decoded?.varying.first?.value == value)
        #expect(decoded?.varying.last?.value == nil)
    }
}
