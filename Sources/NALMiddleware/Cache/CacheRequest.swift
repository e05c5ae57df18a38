#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// What a GET request asks of the cache: its `Cache-Control` directives (or `Pragma: no-cache` without them) and its
/// `cachePolicy`, read as URLSession reads it.
struct CacheRequest {
    let directives: CacheDirectives
    let policy: URLRequest.CachePolicy

    init(_ request: URLRequest) {
        var directives = CacheDirectives(request.value(forHTTPHeaderField: "Cache-Control").map { [$0] } ?? [])
        // RFC 9111 §5.4: Pragma: no-cache counts only where Cache-Control is absent.
        if directives.isEmpty, let pragma = request.value(forHTTPHeaderField: "Pragma"),
            pragma.lowercased().contains("no-cache")
        {
            directives = CacheDirectives(["no-cache"])
        }
        self.directives = directives
        policy = request.cachePolicy
    }

    /// What to do with a stored response that the request selects.
    enum Decision: Equatable {
        /// Serve it without a call.
        case serve
        /// Serve it stale: `stale-while-revalidate` covers it. A middleware cannot call after it has returned, so
        /// the response is refreshed by the first request past the window.
        case serveStale
        /// Ask the server first.
        case revalidate
    }

    /// What forbids a shared cache to serve a stale response (§5.2.2.8, §5.2.2.10).
    static func sharedMustRevalidate(_ directives: CacheDirectives) -> Bool {
        directives.has("proxy-revalidate") || directives.has("s-maxage")
    }

    /// The reload policies: nothing stored is used (it may still be replaced).
    var ignoresStoredResponses: Bool {
        policy == .reloadIgnoringLocalCacheData || policy == .reloadIgnoringLocalAndRemoteCacheData
    }

    /// Whether the request must be answered from the cache or not at all: `only-if-cached`, or
    /// `returnCacheDataDontLoad` (offline).
    var neverLoads: Bool { directives.has("only-if-cached") || policy == .returnCacheDataDontLoad }

    func decision(for stored: CachedResponse, freshness: CacheFreshness, shared: Bool = false) -> Decision {
        // URLSession's offline policies use whatever is stored, however old.
        if policy == .returnCacheDataElseLoad || policy == .returnCacheDataDontLoad { return .serve }
        let response = stored.directives
        // A no-cache that names fields (`no-cache="Set-Cookie"`) only keeps those fields out of the store (§5.2.2.4).
        if policy == .reloadRevalidatingCacheData || directives.has("no-cache")
            || response.has("no-cache") && !response.hasValue("no-cache")
        {
            return .revalidate
        }
        if let maxAge = directives.seconds("max-age"), freshness.age > maxAge { return .revalidate }
        if freshness.isFresh {
            if let minFresh = directives.seconds("min-fresh"), freshness.lifetime - freshness.age < minFresh {
                return .revalidate
            }
            return .serve
        }
        // Stale from here on: must-revalidate forbids serving it without the server (§5.2.2.2).
        if response.has("must-revalidate") || shared && Self.sharedMustRevalidate(response) { return .revalidate }
        if directives.has("max-stale") {
            // A max-stale without a value takes any staleness.
            if !directives.hasValue("max-stale") || freshness.staleness <= directives.seconds("max-stale") ?? 0 {
                return .serve
            }
        }
        if let window = response.seconds("stale-while-revalidate"), freshness.staleness <= window {
            return .serveStale
        }
        return .revalidate
    }
}
