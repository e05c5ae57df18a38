import Foundation
import NALTestSupport
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

    @Test("an entry with an item after its body is refused, even with a digest that matches its bytes")
    func itemAfterBodyRefused() throws {
        let encoded = CacheEntryFile.encode(
            fields: [("Content-Type", "text/plain")], varying: [], body: Data("ok".utf8), keyDigest: "k")
        #expect(CacheEntryFile.decode(encoded, keyDigest: "k")?.body == Data("ok".utf8))
        // The content without its digest, one more item ("2\nhi"), and the digest of all that.
        var resealed = Array(encoded.dropLast(64)) + Array("2\nhi".utf8)
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let content = directory.appendingPathComponent("content")
        try Data(resealed).write(to: content)
        resealed += Array(try TransferFiles.sha256(of: content).utf8)
        #expect(CacheEntryFile.decode(resealed, keyDigest: "k") == nil)
        #expect(CacheEntryFile.decodesAndRoundTrips(resealed, keyDigest: "k") == nil)
    }
}
