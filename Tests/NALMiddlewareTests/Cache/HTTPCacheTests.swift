import Foundation
import NALCore
import NALMiddleware
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HTTPCache's rules (RFC 9111 for a private cache), each against an origin the test scripts and a clock it moves.
@Suite("HTTPCache: storing, freshness, revalidation and invalidation")
struct HTTPCacheTests {
    let clock = TestClock()

    /// A cache of `kind` in front of `origin`, and a client that sends through both.
    func harness(
        _ kind: CacheStoreKind = .memory, maximumBytes: Int = 1 << 20,
        _ answer: @escaping @Sendable (URLRequest, Int) -> CacheTestOrigin.Answer
    ) -> (HTTPCache, CacheTestOrigin, Client<TestEndpoint>) {
        let clock = self.clock
        let cache = HTTPCache(storage: kind.storage(maximumBytes: maximumBytes), clock: { clock.now })
        let origin = CacheTestOrigin(clock: clock, answer: answer)
        return (cache, origin, Client<TestEndpoint>(middleware: [cache], transport: origin))
    }

    static func endpoint(
        _ path: String = "r", method: HTTPMethod = .get, headers: [String: String]? = nil,
        policy: URLRequest.CachePolicy? = nil
    ) -> TestEndpoint {
        TestEndpoint(path: path, method: method, headers: headers, validation: .none, cachePolicy: policy)
    }

    static func answer(
        _ headers: [String: String], status: Int = 200, body: String = "body"
    )
        -> CacheTestOrigin.Answer
    {
        CacheTestOrigin.Answer(status: status, headers: headers, body: Data(body.utf8))
    }

    @Test(
        "a fresh response (max-age) is served from the cache with its Age; the first came from the network",
        arguments: CacheStoreKind.allCases)
    func freshHit(_ kind: CacheStoreKind) async throws {
        let (cache, origin, client) = harness(kind) { _, _ in Self.answer(["Cache-Control": "max-age=60"]) }
        let first = try await client.request(Self.endpoint())
        #expect(HTTPCache.Outcome(first) == .network)
        clock.advance(by: 10)
        let second = try await client.request(Self.endpoint())
        #expect(HTTPCache.Outcome(second) == .hit)
        #expect(second.string() == "body")
        #expect(second.headers["Age"] == "10")
        #expect(origin.requests.count == 1)
        #expect(cache.statistics == HTTPCache.Statistics(hits: 1, misses: 1, revalidations: 0, stores: 1))
    }

    @Test(
        "a stale response is revalidated with If-None-Match; a 304 updates its fields and it is fresh again",
        arguments: CacheStoreKind.allCases)
    func revalidationWithETag(_ kind: CacheStoreKind) async throws {
        let (cache, origin, client) = harness(kind) { _, index in
            index == 0
                ? Self.answer(["Cache-Control": "max-age=10", "ETag": "\"v1\"", "X-Version": "1"], body: "one")
                : Self.answer(
                    ["Cache-Control": "max-age=100", "ETag": "\"v1\"", "X-Version": "2"], status: 304, body: "")
        }
        _ = try await client.request(Self.endpoint())
        clock.advance(by: 11)
        let revalidated = try await client.request(Self.endpoint())
        #expect(HTTPCache.Outcome(revalidated) == .revalidated)
        #expect(revalidated.statusCode == 200)
        #expect(revalidated.string() == "one")
        #expect(revalidated.headers["X-Version"] == "2")
        #expect(origin.requests.last?.value(forHTTPHeaderField: "If-None-Match") == "\"v1\"")
        // 95 s after the 304 (106 s after the first answer) it is still fresh: its age runs from the revalidation.
        clock.advance(by: 95)
        let fresh = try await client.request(Self.endpoint())
        #expect(HTTPCache.Outcome(fresh) == .hit)
        #expect(origin.requests.count == 2)
        #expect(cache.statistics.revalidations == 1)
    }

    @Test(
        "Last-Modified is sent back as If-Modified-Since; a 200 instead of a 304 replaces the stored response",
        arguments: CacheStoreKind.allCases)
    func revalidationWithLastModified(_ kind: CacheStoreKind) async throws {
        let modified = TestClock.httpDate(clock.now.addingTimeInterval(-3600))
        let (_, origin, client) = harness(kind) { _, index in
            Self.answer(["Cache-Control": "max-age=5", "Last-Modified": modified], body: "v\(index)")
        }
        _ = try await client.request(Self.endpoint())
        clock.advance(by: 6)
        let replaced = try await client.request(Self.endpoint())
        #expect(origin.requests.last?.value(forHTTPHeaderField: "If-Modified-Since") == modified)
        #expect(replaced.string() == "v1")
        #expect(HTTPCache.Outcome(replaced) == .network)
        let hit = try await client.request(Self.endpoint())
        #expect(hit.string() == "v1")
        #expect(HTTPCache.Outcome(hit) == .hit)
    }

    @Test(
        "Expires minus Date gives the lifetime; an Expires that is not a date is already expired",
        arguments: CacheStoreKind.allCases)
    func expires(_ kind: CacheStoreKind) async throws {
        let expires = TestClock.httpDate(clock.now.addingTimeInterval(30))
        let (_, origin, client) = harness(kind) { request, _ in
            request.url?.path == "/v1/good" ? Self.answer(["Expires": expires]) : Self.answer(["Expires": "0"])
        }
        _ = try await client.request(Self.endpoint("good"))
        _ = try await client.request(Self.endpoint("bad"))
        clock.advance(by: 20)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("good"))) == .hit)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("bad"))) == .network)
        clock.advance(by: 11)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("good"))) == .network)
        #expect(origin.requests.count == 4)
    }

    @Test(
        "an Expires that is not one strict HTTP-date (UTC, no comma, two fields) is past; a good one is fresh",
        arguments: CacheStoreKind.allCases)
    func strictExpires(_ kind: CacheStoreKind) async throws {
        let (_, origin, client) = harness(kind) { request, _ in
            let expires = request.url?.lastPathComponent ?? ""
            return Self.answer(["Expires": expires == "good" ? "Thu, 18 Aug 2050 02:01:18 GMT" : expires])
        }
        for path in ["Thu, 18 Aug 2050 02:01:18 UTC", "Thu 18 Aug 2050 02:01:18 GMT", "good"] {
            _ = try await client.request(Self.endpoint(path))
            let second = try await client.request(Self.endpoint(path))
            #expect(HTTPCache.Outcome(second) == (path == "good" ? .hit : .network), "\(path)")
        }
        #expect(origin.requests.count == 5)
    }

    @Test(
        "Age counts from its first member: `7200, 0` makes a max-age=3600 response stale, `0, 7200` does not",
        arguments: CacheStoreKind.allCases)
    func ageMembers(_ kind: CacheStoreKind) async throws {
        let (_, _, client) = harness(kind) { request, _ in
            Self.answer(["Cache-Control": "max-age=3600", "Age": request.url?.lastPathComponent ?? ""])
        }
        for (age, outcome) in [("7200, 0", HTTPCache.Outcome.network), ("0, 7200", .hit), ("7200;x=1", .network)] {
            _ = try await client.request(Self.endpoint(age))
            #expect(HTTPCache.Outcome(try await client.request(Self.endpoint(age))) == outcome, "\(age)")
        }
    }

    @Test(
        "a Range request is answered from a stored 200 with a 206 of its bytes; what it cannot cut goes to the server",
        arguments: CacheStoreKind.allCases)
    func ranges(_ kind: CacheStoreKind) async throws {
        let (_, origin, client) = harness(kind) { request, _ in
            request.value(forHTTPHeaderField: "Range") == nil
                ? Self.answer(["Cache-Control": "max-age=60", "X-Stored": "yes"], body: "01234567890")
                : Self.answer(["Content-Range": "bytes 0-1/11"], status: 206, body: "01")
        }
        _ = try await client.request(Self.endpoint())
        for (range, text, content) in [("bytes=0-1", "01", "bytes 0-1/11"), ("bytes=-3", "890", "bytes 8-10/11")] {
            let part = try await client.request(Self.endpoint(headers: ["Range": range]))
            #expect(HTTPCache.Outcome(part) == .hit)
            #expect(part.statusCode == 206)
            #expect(part.string() == text)
            #expect(part.headers["Content-Range"] == content)
            #expect(part.headers["Content-Length"] == String(text.utf8.count))
            #expect(part.headers["X-Stored"] == "yes")
        }
        let several = try await client.request(Self.endpoint(headers: ["Range": "bytes=0-1,3-4"]))
        #expect(HTTPCache.Outcome(several) == .network)
        #expect(origin.requests.count == 2)
        // The server's 206 replaced nothing: the whole body is still served.
        #expect(try await client.request(Self.endpoint()).string() == "01234567890")
    }

    @Test(
        "fields a Connection or a no-cache=\"…\" names are not stored; a no-cache that names fields forces no revalidation",
        arguments: CacheStoreKind.allCases)
    func namedFieldsLeftOut(_ kind: CacheStoreKind) async throws {
        let (_, origin, client) = harness(kind) { _, _ in
            Self.answer([
                "Cache-Control": "max-age=60, no-cache=\"X-Secret, X-Other\"", "X-Secret": "s", "X-Other": "o",
                "Connection": "X-Hop", "X-Hop": "h", "X-Kept": "k",
            ])
        }
        let first = try await client.request(Self.endpoint())
        #expect(first.headers["X-Secret"] == "s")
        let second = try await client.request(Self.endpoint())
        #expect(HTTPCache.Outcome(second) == .hit)
        #expect(origin.requests.count == 1)
        #expect(second.headers["X-Kept"] == "k")
        for name in ["X-Secret", "X-Other", "X-Hop"] { #expect(second.headers[name] == nil, "\(name)") }
    }

    @Test(
        "max-age wins over Expires, and an Age from upstream counts against the lifetime",
        arguments: CacheStoreKind.allCases)
    func maxAgeAndAge(_ kind: CacheStoreKind) async throws {
        let expires = TestClock.httpDate(clock.now.addingTimeInterval(1000))
        let (_, _, client) = harness(kind) { _, _ in
            Self.answer(["Cache-Control": "max-age=60", "Expires": expires, "Age": "50"])
        }
        _ = try await client.request(Self.endpoint())
        clock.advance(by: 5)
        let hit = try await client.request(Self.endpoint())
        #expect(HTTPCache.Outcome(hit) == .hit)
        #expect(hit.headers["Age"] == "55")
        clock.advance(by: 6)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint())) == .network)
    }

    @Test(
        "a Date before the response arrived counts as age: sent 30 s earlier with max-age=60, it is fresh 30 s more",
        arguments: CacheStoreKind.allCases)
    func dateCountsAsAge(_ kind: CacheStoreKind) async throws {
        let sent = TestClock.httpDate(clock.now.addingTimeInterval(-30))
        let (_, origin, client) = harness(kind) { _, _ in Self.answer(["Cache-Control": "max-age=60", "Date": sent]) }
        _ = try await client.request(Self.endpoint())
        clock.advance(by: 10)
        let hit = try await client.request(Self.endpoint())
        #expect(HTTPCache.Outcome(hit) == .hit)
        #expect(hit.headers["Age"] == "40")
        clock.advance(by: 21)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint())) == .network)
        #expect(origin.requests.count == 2)
    }

    @Test(
        "without explicit freshness, 10 % of the time since Last-Modified; a 302 without it is not stored",
        arguments: CacheStoreKind.allCases)
    func heuristicFreshness(_ kind: CacheStoreKind) async throws {
        let modified = TestClock.httpDate(clock.now.addingTimeInterval(-100))
        let (_, origin, client) = harness(kind) { request, _ in
            request.url?.path == "/v1/moved"
                ? Self.answer(["Last-Modified": modified, "Location": "/v1/x"], status: 302)
                : Self.answer(["Last-Modified": modified])
        }
        _ = try await client.request(Self.endpoint())
        _ = try await client.request(Self.endpoint("moved"))
        clock.advance(by: 9)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint())) == .hit)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("moved"))) == .network)
        clock.advance(by: 2)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint())) == .network)
        #expect(origin.requests.count == 4)
    }

    @Test(
        "no-store, in the response or the request, keeps nothing; Vary: * is not stored either",
        arguments: CacheStoreKind.allCases)
    func noStore(_ kind: CacheStoreKind) async throws {
        let (cache, origin, client) = harness(kind) { request, _ in
            switch request.url?.path {
            case "/v1/no-store": Self.answer(["Cache-Control": "max-age=60, no-store"])
            case "/v1/vary-star": Self.answer(["Cache-Control": "max-age=60", "Vary": "*"])
            default: Self.answer(["Cache-Control": "max-age=60"])
            }
        }
        for _ in 0..<2 {
            _ = try await client.request(Self.endpoint("no-store"))
            _ = try await client.request(Self.endpoint("vary-star"))
            _ = try await client.request(Self.endpoint("asked", headers: ["Cache-Control": "no-store"]))
        }
        #expect(origin.requests.count == 6)
        #expect(cache.statistics.stores == 0)
    }

    @Test(
        "no-cache, from the response, the request or Pragma, revalidates every time", arguments: CacheStoreKind.allCases
    )
    func noCache(_ kind: CacheStoreKind) async throws {
        let (_, origin, client) = harness(kind) { request, index in
            let headers =
                request.url?.path == "/v1/always"
                ? ["Cache-Control": "no-cache, max-age=60", "ETag": "\"e\""]
                : ["Cache-Control": "max-age=60", "ETag": "\"e\""]
            return index < 2 ? Self.answer(headers) : Self.answer(headers, status: 304, body: "")
        }
        _ = try await client.request(Self.endpoint("always"))
        _ = try await client.request(Self.endpoint("plain"))
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("always"))) == .revalidated)
        let asked = try await client.request(Self.endpoint("plain", headers: ["Cache-Control": "no-cache"]))
        #expect(HTTPCache.Outcome(asked) == .revalidated)
        let pragma = try await client.request(Self.endpoint("plain", headers: ["Pragma": "no-cache"]))
        #expect(HTTPCache.Outcome(pragma) == .revalidated)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("plain"))) == .hit)
        #expect(origin.requests.count == 5)
    }

    @Test(
        "Vary: a request with the same value of the named field is served; another value goes to the network",
        arguments: CacheStoreKind.allCases)
    func vary(_ kind: CacheStoreKind) async throws {
        let (_, origin, client) = harness(kind) { request, _ in
            Self.answer(
                ["Cache-Control": "max-age=60", "Vary": "Accept-Language"],
                body: request.value(forHTTPHeaderField: "Accept-Language") ?? "none")
        }
        _ = try await client.request(Self.endpoint(headers: ["Accept-Language": "en"]))
        let same = try await client.request(Self.endpoint(headers: ["Accept-Language": "en"]))
        #expect(HTTPCache.Outcome(same) == .hit)
        let other = try await client.request(Self.endpoint(headers: ["Accept-Language": "fr"]))
        #expect(HTTPCache.Outcome(other) == .network)
        #expect(other.string() == "fr")
        // Both variants are kept.
        #expect(try await client.request(Self.endpoint(headers: ["Accept-Language": "en"])).string() == "en")
        #expect(try await client.request(Self.endpoint(headers: ["Accept-Language": "fr"])).string() == "fr")
        let absent = try await client.request(Self.endpoint())
        #expect(HTTPCache.Outcome(absent) == .network)
        #expect(origin.requests.count == 3)
    }

    @Test(
        "Vary: values that differ only in the spaces around their commas select the same response",
        arguments: CacheStoreKind.allCases)
    func varyIgnoresSpacesInLists(_ kind: CacheStoreKind) async throws {
        let (_, origin, client) = harness(kind) { _, _ in
            Self.answer(["Cache-Control": "max-age=60", "Vary": "Accept-Language"])
        }
        _ = try await client.request(Self.endpoint(headers: ["Accept-Language": "en, fr"]))
        let same = try await client.request(Self.endpoint(headers: ["Accept-Language": "en,fr"]))
        #expect(HTTPCache.Outcome(same) == .hit)
        let other = try await client.request(Self.endpoint(headers: ["Accept-Language": "en, de"]))
        #expect(HTTPCache.Outcome(other) == .network)
        #expect(origin.requests.count == 2)
    }

    @Test(
        "request directives: max-age, min-fresh, max-stale; must-revalidate refuses max-stale",
        arguments: CacheStoreKind.allCases)
    func requestDirectives(_ kind: CacheStoreKind) async throws {
        let (_, origin, client) = harness(kind) { request, _ in
            request.url?.path == "/v1/strict"
                ? Self.answer(["Cache-Control": "max-age=10, must-revalidate"])
                : Self.answer(["Cache-Control": "max-age=10"])
        }
        _ = try await client.request(Self.endpoint())
        _ = try await client.request(Self.endpoint("strict"))
        clock.advance(by: 5)
        #expect(
            HTTPCache.Outcome(try await client.request(Self.endpoint(headers: ["Cache-Control": "max-age=5"]))) == .hit)
        // 5 s of freshness left: min-fresh=6 asks for more, and the response stored in its place is new.
        let minFresh = try await client.request(Self.endpoint(headers: ["Cache-Control": "min-fresh=6"]))
        #expect(HTTPCache.Outcome(minFresh) == .network)
        clock.advance(by: 4)
        #expect(
            HTTPCache.Outcome(try await client.request(Self.endpoint(headers: ["Cache-Control": "max-age=3"])))
                == .network)
        clock.advance(by: 15)
        let stale = Self.endpoint(headers: ["Cache-Control": "max-stale=10"])
        #expect(HTTPCache.Outcome(try await client.request(stale)) == .hit)
        #expect(
            HTTPCache.Outcome(try await client.request(Self.endpoint(headers: ["Cache-Control": "max-stale"]))) == .hit)
        #expect(
            HTTPCache.Outcome(try await client.request(Self.endpoint(headers: ["Cache-Control": "max-stale=1"])))
                == .network)
        let strict = Self.endpoint("strict", headers: ["Cache-Control": "max-stale"])
        #expect(HTTPCache.Outcome(try await client.request(strict)) == .network)
        #expect(origin.requests.count == 6)
    }

    @Test(
        "only-if-cached answers 504 when nothing stored fits, and serves what is fresh",
        arguments: CacheStoreKind.allCases)
    func onlyIfCached(_ kind: CacheStoreKind) async throws {
        let (_, origin, client) = harness(kind) { _, _ in Self.answer(["Cache-Control": "max-age=10"]) }
        let onlyCached = Self.endpoint(headers: ["Cache-Control": "only-if-cached"])
        let missing = try await client.request(onlyCached)
        #expect(missing.statusCode == 504)
        #expect(origin.requests.isEmpty)
        _ = try await client.request(Self.endpoint())
        #expect(try await client.request(onlyCached).statusCode == 200)
        clock.advance(by: 11)
        #expect(try await client.request(onlyCached).statusCode == 504)
        #expect(origin.requests.count == 1)
    }

    @Test(
        "a successful POST removes its URL and its same-origin Location, not another origin's or after an error",
        arguments: CacheStoreKind.allCases)
    func invalidation(_ kind: CacheStoreKind) async throws {
        let (_, origin, client) = harness(kind) { request, _ in
            switch (request.httpMethod, request.url?.path) {
            case ("POST", "/v1/r"):
                Self.answer(
                    ["Location": "/v1/other", "Content-Location": "https://elsewhere.example/v1/third"], status: 201)
            case ("PUT", "/v1/r"): Self.answer(["Content-Location": "/v1/fourth"], status: 200)
            case ("DELETE", _): Self.answer([:], status: 500)
            default: Self.answer(["Cache-Control": "max-age=60"])
            }
        }
        var elsewhere = Self.endpoint("third")
        elsewhere.baseURL = try #require(URL(string: "https://elsewhere.example/v1"))
        for path in ["r", "other"] { _ = try await client.request(Self.endpoint(path)) }
        _ = try await client.request(elsewhere)
        _ = try await client.request(Self.endpoint("r", method: .delete))
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("r"))) == .hit)
        _ = try await client.request(Self.endpoint("r", method: .post))
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("r"))) == .network)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("other"))) == .network)
        #expect(HTTPCache.Outcome(try await client.request(elsewhere)) == .hit)
        #expect(origin.requests.count == 7)
        // A same-origin Content-Location is invalidated too.
        _ = try await client.request(Self.endpoint("fourth"))
        _ = try await client.request(Self.endpoint("r", method: .put))
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("fourth"))) == .network)
    }

    @Test(
        "cachePolicy as URLSession reads it: reload ignores, returnCacheDataElseLoad and DontLoad take stale data",
        arguments: CacheStoreKind.allCases)
    func cachePolicies(_ kind: CacheStoreKind) async throws {
        let (_, origin, client) = harness(kind) { _, _ in Self.answer(["Cache-Control": "max-age=10"]) }
        let offline = Self.endpoint(policy: .returnCacheDataDontLoad)
        #expect(try await client.request(offline).statusCode == 504)
        _ = try await client.request(Self.endpoint())
        let reload = try await client.request(Self.endpoint(policy: .reloadIgnoringLocalCacheData))
        #expect(HTTPCache.Outcome(reload) == .network)
        clock.advance(by: 100)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint(policy: .returnCacheDataElseLoad))) == .hit)
        #expect(HTTPCache.Outcome(try await client.request(offline)) == .hit)
        #expect(origin.requests.count == 2)
    }

    @Test(
        "stale-if-error serves the stale response for a 5xx or a failed call within its window, not after",
        arguments: CacheStoreKind.allCases)
    func staleIfError(_ kind: CacheStoreKind) async throws {
        let (_, _, client) = harness(kind) { _, index in
            index == 0
                ? Self.answer(["Cache-Control": "max-age=10, stale-if-error=30"], body: "kept")
                : Self.answer([:], status: 503, body: "down")
        }
        _ = try await client.request(Self.endpoint())
        clock.advance(by: 20)
        let stale = try await client.request(Self.endpoint())
        #expect(stale.string() == "kept")
        #expect(HTTPCache.Outcome(stale) == .hit)
        clock.advance(by: 30)
        #expect(try await client.request(Self.endpoint()).statusCode == 503)
    }

    @Test(
        "stale-while-revalidate serves a stale response within its window; past it, the server is asked",
        arguments: CacheStoreKind.allCases)
    func staleWhileRevalidate(_ kind: CacheStoreKind) async throws {
        let (_, origin, client) = harness(kind) { _, _ in
            Self.answer(["Cache-Control": "max-age=10, stale-while-revalidate=30"])
        }
        _ = try await client.request(Self.endpoint())
        clock.advance(by: 20)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint())) == .hit)
        clock.advance(by: 30)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint())) == .network)
        #expect(origin.requests.count == 2)
    }

    @Test(
        "Set-Cookie is never stored or served again; a 500 without explicit freshness is not stored",
        arguments: CacheStoreKind.allCases)
    func unstored(_ kind: CacheStoreKind) async throws {
        let (cache, origin, client) = harness(kind) { request, _ in
            request.url?.path == "/v1/error"
                ? Self.answer([:], status: 500) : Self.answer(["Cache-Control": "max-age=60", "Set-Cookie": "s=1"])
        }
        _ = try await client.request(Self.endpoint())
        let hit = try await client.request(Self.endpoint())
        #expect(HTTPCache.Outcome(hit) == .hit)
        #expect(hit.headers["Set-Cookie"] == nil)
        _ = try await client.request(Self.endpoint("error"))
        _ = try await client.request(Self.endpoint("error"))
        #expect(origin.requests.count == 3)
        #expect(cache.statistics.stores == 1)
    }

    @Test("the memory store keeps at most its bytes, dropping the least recently used first")
    func leastRecentlyUsed() async throws {
        // Each response takes about 1,200 bytes with its fields: three fit.
        let (_, origin, client) = harness(maximumBytes: 4000) { _, _ in
            Self.answer(["Cache-Control": "max-age=60"], body: String(repeating: "x", count: 800))
        }
        for path in ["a", "b", "c"] { _ = try await client.request(Self.endpoint(path)) }
        _ = try await client.request(Self.endpoint("a"))  // a is now newer than b
        _ = try await client.request(Self.endpoint("d"))  // over 4,000 bytes: b goes
        #expect(origin.requests.count == 4)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("a"))) == .hit)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("b"))) == .network)
    }

    @Test(
        "removeAll and removeResponses(for:) empty the cache, all of it or one URL's",
        arguments: CacheStoreKind.allCases)
    func removal(_ kind: CacheStoreKind) async throws {
        let (cache, origin, client) = harness(kind) { _, _ in Self.answer(["Cache-Control": "max-age=60"]) }
        for path in ["a", "b"] { _ = try await client.request(Self.endpoint(path)) }
        await cache.removeResponses(for: try Self.endpoint("a").urlRequest())
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("a"))) == .network)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("b"))) == .hit)
        await cache.removeAll()
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("b"))) == .network)
        #expect(origin.requests.count == 4)
    }

    @Test(
        "two clients share one cache from many tasks at once: one call per URL once stored",
        arguments: CacheStoreKind.allCases)
    func sharedByClients(_ kind: CacheStoreKind) async throws {
        let (cache, origin, first) = harness(kind) { request, _ in
            Self.answer(["Cache-Control": "max-age=60"], body: request.url?.path ?? "")
        }
        let second = Client<TestEndpoint>(middleware: [cache], transport: origin)
        for path in ["a", "b", "c"] { _ = try await first.request(Self.endpoint(path)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                let client = index.isMultiple(of: 2) ? first : second
                let path = ["a", "b", "c"][index % 3]
                group.addTask {
                    let response = try await client.request(Self.endpoint(path))
                    #expect(response.string() == "/v1/\(path)")
                }
            }
            try await group.waitForAll()
        }
        #expect(origin.requests.count == 3)
        #expect(cache.statistics.hits == 200)
    }
}
