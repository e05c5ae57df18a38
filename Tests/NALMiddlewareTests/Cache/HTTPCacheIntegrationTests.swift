import Foundation
import NALCore
import NALMiddleware
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HTTPCache in front of a real transport (URLSession, or CurlTransport with NAL_TEST_TRANSPORT=curl) and a real
/// httpbin: its cache headers, its ETag revalidation, its no-store.
@Suite("Integration: HTTPCache against httpbin", .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
struct HTTPCacheIntegrationTests {
    let cache = HTTPCache(storage: .memory(maximumBytes: 1 << 20))
    var client: Client<TestEndpoint> { Client(middleware: [cache], transport: TestTransports.make()) }

    @Test("/cache/60 (public, max-age=60) is served from the cache the second time, with an Age")
    func freshHit() async throws {
        let endpoint = HTTPBin.endpoint(
            "cache/60", requestType: .parameters(["n": .string(UUID().uuidString)], encoding: URLEncoding.queryString))
        let first = try await client.request(endpoint)
        #expect(HTTPCache.Outcome(first) == .network)
        let second = try await client.request(endpoint)
        #expect(HTTPCache.Outcome(second) == .hit)
        #expect(second.data == first.data)
        #expect(second.headers["Age"] != nil)
        #expect(cache.statistics.hits == 1)
    }

    @Test("/etag/… has no lifetime: it is revalidated with If-None-Match, and httpbin's 304 serves the stored body")
    func etagRevalidation() async throws {
        let endpoint = HTTPBin.endpoint("etag/nal-\(UUID().uuidString)")
        let first = try await client.request(endpoint)
        #expect(HTTPCache.Outcome(first) == .network)
        let second = try await client.request(endpoint)
        #expect(HTTPCache.Outcome(second) == .revalidated)
        #expect(second.statusCode == 200)
        #expect(second.data == first.data)
        #expect(cache.statistics.revalidations == 1)
    }

    @Test("a redirect the transport follows is not stored as the first URL's response")
    func followedRedirect() async throws {
        let target = "/cache/60?n=\(UUID().uuidString)"
        let endpoint = HTTPBin.endpoint(
            "redirect-to", requestType: .parameters(["url": .string(target)], encoding: URLEncoding.queryString))
        let first = try await client.request(endpoint)
        #expect(first.statusCode == 200)
        #expect(HTTPCache.Outcome(first) == .network)
        #expect(HTTPCache.Outcome(try await client.request(endpoint)) == .network)
        #expect(cache.statistics.stores == 0)
    }

    @Test("a response with Cache-Control: no-store is never stored")
    func noStore() async throws {
        let endpoint = HTTPBin.endpoint(
            "response-headers",
            requestType: .parameters(["Cache-Control": "no-store, max-age=60"], encoding: URLEncoding.queryString))
        _ = try await client.request(endpoint)
        #expect(HTTPCache.Outcome(try await client.request(endpoint)) == .network)
        #expect(cache.statistics.stores == 0)
    }
}
