import Testing

@testable import NALMiddleware

/// `Cache-Control` as RFC 9111 §5.2 reads it, whatever a server sends.
@Suite("HTTPCache: Cache-Control directives")
struct CacheDirectivesTests {
    @Test(
        "names are case-insensitive, values tokens or quoted strings, the first of two wins, numbers saturate",
        arguments: [
            (["max-age=30"], 30), (["MAX-AGE=30"], 30), (["max-age=\"30\""], 30), (["public, max-age = 30"], 30),
            (["max-age=30, max-age=5"], 30), (["max-age=30", "max-age=5"], 30), (["max-age=abc"], 0),
            (["max-age=-1"], 0), (["max-age=99999999999999999999"], 2_147_483_648), (["no-cache"], nil),
            (["private=\"a, max-age=9\", max-age=7"], 7),
        ] as [([String], Int?)])
    func maxAge(fields: [String], expected: Int?) {
        #expect(CacheDirectives(fields).seconds("max-age") == expected)
    }

    @Test("a directive without a value is present, with none")
    func bareDirectives() {
        let directives = CacheDirectives(["no-store, max-stale"])
        #expect(directives.has("no-store"))
        #expect(directives.has("max-stale"))
        #expect(!directives.hasValue("max-stale"))
        #expect(CacheDirectives(["max-stale=5"]).hasValue("max-stale"))
        #expect(!directives.has("no-cache"))
    }
}
