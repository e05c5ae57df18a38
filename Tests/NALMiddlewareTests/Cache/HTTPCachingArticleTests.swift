import Foundation
import NALCore
import NALMiddleware
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The snippets of the HTTP caching article (NALMiddleware.docc/HTTPCaching.md), run against a scripted origin.
@Suite("HTTPCache: the HTTP caching article's snippets")
struct HTTPCachingArticleTests {
    @Test("a folder cache in front of a client: the second call is a hit, and the counts and removal work")
    func article() async throws {
        let transport = CacheTestOrigin(clock: TestClock()) { _, _ in
            CacheTestOrigin.Answer(
                headers: ["Cache-Control": "max-age=60"], body: Data("Keep it logically awesome.".utf8))
        }
        let caches = FileManager.default.temporaryDirectory.appendingPathComponent("nal-article-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: caches) }
        // Docs: begin http-cache-client
        let folder = caches.appendingPathComponent("github")
        let cache = HTTPCache(storage: .directory(folder, maximumBytes: 256 << 20))
        let client = Client<GitHub>(
            middleware: [cache, RetryMiddleware()], transport: transport)
        // Docs: end http-cache-client
        let firstCall = ContinuousClock.now
        _ = try await client.request(.zen)
        // Docs: begin http-cache-outcome
        let response = try await client.request(.zen)
        let source =
            switch HTTPCache.Outcome(response) {
            case .hit: "the cache, \(response.headers["Age"] ?? "0") s old"
            case .revalidated: "the cache, confirmed by the server (304)"
            case .unavailable: "nowhere: offline, and nothing stored (504)"
            case .network, nil: "the network"
            }
        // Docs: end http-cache-outcome
        // A hit, as old in whole seconds as the time since the store allows: 0 unless the machine stalled between
        // the two calls, as a loaded ThreadSanitizer pass once did for a second.
        let mostAge = (ContinuousClock.now - firstCall).components.seconds + 1
        let age = response.headers["Age"].flatMap { Int64($0) } ?? 0
        #expect(source == "the cache, \(age) s old" && (0...mostAge).contains(age), "\(source)")
        // Docs: begin http-cache-housekeeping
        let counts = cache.statistics  // hits, misses, revalidations, stores
        // every stored variant of one URL
        await cache.removeResponses(for: try GitHub.zen.urlRequest())
        await cache.removeAll()  // the folder's entries are gone when this returns
        // Docs: end http-cache-housekeeping
        #expect(counts == HTTPCache.Statistics(hits: 1, misses: 1, revalidations: 0, stores: 1))
        #expect(HTTPCache.Outcome(try await client.request(.zen)) == .network)
    }
}
