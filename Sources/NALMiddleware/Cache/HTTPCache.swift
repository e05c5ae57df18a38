public import NALCore
import NALLogging
import NALSupport

#if canImport(FoundationNetworking)
    public import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// A private HTTP cache (RFC 9111), as a browser keeps one: what `URLCache` gives URLSession on Apple platforms, for
/// any transport.
///
/// ```swift
/// let cache = HTTPCache(storage: .memory(maximumBytes: 32 << 20))
/// let client = Client<GitHub>(middleware: [cache, RetryMiddleware()], transport: try CurlTransport())
/// ```
///
/// - Stores the responses to GET requests that RFC 9111 lets a private cache store: not `no-store` (the request's or
///   the response's), not `Vary: *`, with an explicit lifetime (`max-age`, `Expires`), `public`/`private`, or a
///   status cacheable by default. `Set-Cookie` is not kept.
/// - Serves a fresh response without a call, with an `Age` field; a stale one (or a `no-cache` one) is revalidated
///   with `If-None-Match` and `If-Modified-Since`, and a 304 updates the stored fields (§3.2, §4.3.4).
/// - Honours the request's directives (`no-cache`, `no-store`, `max-age`, `max-stale`, `min-fresh`,
///   `only-if-cached`, which answers 504 when nothing fits), the response's `must-revalidate`,
///   `stale-while-revalidate` (served stale within its window; nothing is refreshed in the background, since a
///   middleware cannot call after it has returned) and `stale-if-error`, and the request's `cachePolicy` as
///   URLSession reads it.
/// - A request with one byte range is answered with a 206 cut from a stored 200.
/// - A successful unsafe request (POST, PUT, DELETE…) removes what is stored for its URL and for the same-origin
///   `Location` and `Content-Location` of its response.
/// - Every response it returns says where it came from in a `Cache-Status` field (RFC 9211), read by
///   ``HTTPCache/Outcome/init(_:)``: `NAL; hit`, `NAL; fwd=stale; fwd-status=304` (revalidated), `NAL; fwd=uri-miss`
///   (from the network), `NAL; fwd=bypass` (let through without looking).
///
/// Downloads, uploads, streamed responses, HEAD and the caller's own conditional requests pass through uncached.
/// Several clients may share one cache, but not several accounts: a cache outside the middleware that adds
/// `Authorization` cannot tell one user's responses from another's. Keep one cache (and one folder) per account,
/// and call ``removeAll()`` at logout.
public final class HTTPCache: Middleware, Sendable, CustomReflectable {
    /// Where responses are kept.
    public enum Storage: Sendable, Equatable {
        /// In memory, at most `maximumBytes` (bodies and fields), least recently used first out.
        case memory(maximumBytes: Int)
        /// In `folder` (created, private to the user, when missing), at most `maximumBytes` on disk at any moment,
        /// least recently used first out. A later process serves what an earlier one stored. Caches made for the
        /// same folder in one process share its entries; a second process finds the folder locked and caches
        /// nothing there.
        case directory(URL, maximumBytes: Int)
    }

    /// What the cache has done since it was made.
    public struct Statistics: Sendable, Equatable {
        /// Responses served from the cache without a call (fresh, or stale where that was allowed).
        public var hits = 0
        /// Calls made with nothing usable stored.
        public var misses = 0
        /// Stored responses revalidated with a conditional request that the server answered 304.
        public var revalidations = 0
        /// Responses stored.
        public var stores = 0

        /// Creates counts; all zero by default.
        public init(hits: Int = 0, misses: Int = 0, revalidations: Int = 0, stores: Int = 0) {
            self.hits = hits
            self.misses = misses
            self.revalidations = revalidations
            self.stores = stores
        }
    }

    /// Where a response that a cache returned came from, read from its `Cache-Status` field.
    public enum Outcome: Sendable, Equatable {
        /// Served from the cache, without a call: fresh, or stale where that was allowed (`max-stale`,
        /// `stale-while-revalidate`, `stale-if-error`).
        case hit
        /// Served from the cache after the server confirmed it (304).
        case revalidated
        /// From the network: nothing usable was stored, or the cache let the request pass (not a GET, a download,
        /// a stream, the caller's own conditional request).
        case network
        /// A 504 made without a call: nothing usable was stored, and the request forbade the network
        /// (`only-if-cached`, or `cachePolicy` `.returnCacheDataDontLoad`).
        case unavailable

        /// The outcome of `response`, or `nil` when no `HTTPCache` returned it.
        public init?(_ response: Response) {
            guard let status = response.headers[HTTPCache.statusField] else { return nil }
            let members = status.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let ours = members.last(where: { $0 == "NAL" || $0.hasPrefix("NAL;") }) else { return nil }
            let parameters = ours.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            if parameters.contains("fwd-status=304") {
                self = .revalidated
            } else if parameters.contains("detail=only-if-cached") {
                self = .unavailable
            } else if parameters.contains(where: { $0.hasPrefix("fwd=") }) {
                self = .network
            } else {
                self = .hit
            }
        }
    }

    /// Where responses are kept.
    public let storage: Storage
    /// Whether the cache follows RFC 9111's rules for a shared cache (a proxy's, a CDN's) rather than a private one.
    public let isShared: Bool
    private let store: any CacheStore
    private let counts = Locked(Statistics())
    /// Goes up with every `removeAll()`: a response whose request was sent before it is not stored.
    private let generation = Locked(0)

    /// The field that says where a response came from (RFC 9211).
    static let statusField = "Cache-Status"

    /// What time it is, for ages and lifetimes.
    private let clock: @Sendable () -> Date

    /// Creates a cache.
    ///
    /// - Parameters:
    ///   - storage: where responses are kept; a negative size keeps nothing.
    ///   - isShared: follow RFC 9111's rules for a shared cache, as a proxy in front of several users would: no
    ///     `private` response is stored, nor a response to a request with `Authorization` unless it says `public`,
    ///     `s-maxage` or `must-revalidate`; `s-maxage` comes before `max-age`, and with `proxy-revalidate` forbids
    ///     serving stale. A private cache (the default) is what an app or a service calling an API wants.
    public convenience init(storage: Storage, isShared: Bool = false) {
        self.init(storage: storage, isShared: isShared, clock: { Date() })
    }

    /// Creates a cache that reads the time from `clock`; a folder's store calls `folderWriteProbe` each time a file
    /// is written whole, before it is renamed into place. For tests.
    package init(
        storage: Storage, isShared: Bool = false, clock: @escaping @Sendable () -> Date,
        folderWriteProbe: (@Sendable (URL) -> Void)? = nil
    ) {
        self.storage = storage
        self.isShared = isShared
        self.clock = clock
        switch storage {
        case .memory(let maximumBytes): store = MemoryCacheStore(maximumBytes: maximumBytes)
        case .directory(let folder, let maximumBytes):
            store = DirectoryCacheStore.shared(
                folder: folder, maximumBytes: maximumBytes, writeProbe: folderWriteProbe)
        }
    }

    /// What the cache has done since it was made.
    public var statistics: Statistics { counts.withLock { $0 } }

    /// What `dump(_:)` and debuggers show: the settings and the counts, never a stored response.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["storage": storage, "isShared": isShared, "statistics": statistics], displayStyle: .class)
    }

    /// Removes every stored response; from a folder, its files are gone when this returns. A call under way does
    /// not store its response afterwards: call this at logout.
    public func removeAll() async {
        generation.withLock { $0 += 1 }
        await store.removeAll()
    }

    /// Removes what is stored for `request`'s URL (every variant `Vary` made).
    public func removeResponses(for request: URLRequest) async {
        guard let url = request.url else { return }
        await store.remove(Self.key(for: url))
    }

    /// Answers a GET from the cache when it may, revalidates what is stale, stores what the network returns, and
    /// removes what an unsafe request made stale. Everything else passes through, tagged `NAL; fwd=bypass`.
    public func intercept(
        _ request: URLRequest, context: TransportContext,
        next: @Sendable (URLRequest, TransportContext) async throws -> Response
    ) async throws -> Response {
        guard let url = request.url, ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            return try await next(request, context)
        }
        let method = request.httpMethod?.uppercased() ?? "GET"
        guard method == "GET" else {
            let response = try await next(Self.uncached(request), context)
            if !Self.safeMethods.contains(method) { await invalidate(after: response, to: url) }
            return Self.tagged(response, status: Self.bypass)
        }
        let asked = CacheRequest(request)
        guard case .data = context.kind, !context.streamsBody, !Self.isConditional(request) else {
            // Downloads, streams and the caller's own conditional requests are not answered from the cache, and
            // an offline request does not reach the network either.
            if asked.neverLoads { return try unavailable(request) }
            return Self.tagged(try await next(Self.uncached(request), context), status: Self.bypass)
        }
        return try await lookUp(request, asked: asked, url: url, context: context, next: next)
    }

    /// The methods that change nothing on the server (RFC 9110 §9.2.1): their responses invalidate nothing.
    static let safeMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]

    /// The `Cache-Status` of a response the cache let pass without looking.
    static let bypass = "NAL; fwd=bypass"

    /// The stored responses' key: the URL without its fragment.
    /// The scheme and host are lowercased and a default port left out, so that `HTTPS://API.example.com:443/x`
    /// and `https://api.example.com/x` are one resource (a POST to either invalidates both).
    static func key(for url: URL) -> String {
        var text = url.absoluteString
        if let fragment = text.firstIndex(of: "#") { text = String(text[..<fragment]) }
        let scheme = url.scheme?.lowercased()
        let defaultPort = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
        guard url.scheme != scheme || url.host != url.host?.lowercased() || url.port != nil && url.port == defaultPort,
            var parts = URLComponents(string: text)
        else { return text }
        parts.scheme = scheme
        parts.host = parts.host?.lowercased()
        if parts.port == defaultPort { parts.port = nil }
        return parts.string ?? text
    }

    /// Whether the caller made the request conditional itself: its answer is the caller's to read.
    private static func isConditional(_ request: URLRequest) -> Bool {
        ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range"].contains {
            request.value(forHTTPHeaderField: $0) != nil
        }
    }

    /// `request` as the cache sends it on: a transport's own cache (URLSession's `urlCache` on Apple platforms)
    /// must neither answer it nor keep what it brings.
    private static func uncached(_ request: URLRequest) -> URLRequest {
        var forwarded = request
        forwarded.cachePolicy = .reloadIgnoringLocalCacheData
        return forwarded
    }

    private func lookUp(
        _ request: URLRequest, asked: CacheRequest, url: URL, context: TransportContext,
        next: @Sendable (URLRequest, TransportContext) async throws -> Response
    ) async throws -> Response {
        let key = Self.key(for: url)
        guard !asked.directives.has("no-store") else {
            return try await fromNetwork(request, key: key, context: context, next: next, stores: false)
        }
        let now = clock()
        let headers = request.allHTTPHeaderFields ?? [:]
        let stored = asked.ignoresStoredResponses ? nil : await store.response(for: key, matching: headers)
        guard let stored else {
            if asked.neverLoads { return try unavailable(request) }
            return try await fromNetwork(request, key: key, context: context, next: next, stores: true)
        }
        if let range = request.value(forHTTPHeaderField: "Range"), !Self.canCut(range, from: stored) {
            // A range the cache cannot cut from what it holds is the server's to answer (RFC 9110 §14.2).
            if asked.neverLoads { return try unavailable(request) }
            return Self.tagged(try await next(Self.uncached(request), context), status: Self.bypass)
        }
        let freshness = CacheFreshness(stored, now: now, shared: isShared)
        switch asked.decision(for: stored, freshness: freshness, shared: isShared) {
        case .serve:
            if let response = served(stored, to: request, age: freshness.age, status: "NAL; hit") { return response }
        case .serveStale:
            let status = "NAL; hit; detail=stale-while-revalidate"
            if let response = served(stored, to: request, age: freshness.age, status: status) { return response }
        case .revalidate:
            if asked.neverLoads { return try unavailable(request) }
            return try await revalidate(
                stored, freshness: freshness, request: request, key: key, context: context, next: next)
        }
        return try await fromNetwork(request, key: key, context: context, next: next, stores: true)
    }

    /// Whether a 206 for `range` can be cut from `stored`: a whole 200 whose body is as the server sent it (a
    /// transport may have decoded a `Content-Encoding`, which the stored fields still name).
    private static func canCut(_ range: String, from stored: CachedResponse) -> Bool {
        let coding = stored.value("Content-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased() ?? "identity"
        return stored.statusCode == 200 && coding == "identity"
            && CacheRange.offsets(range, length: stored.body.count) != nil
    }

    /// A call for `request`; its response is stored when it may be.
    private func fromNetwork(
        _ request: URLRequest, key: String, context: TransportContext,
        next: @Sendable (URLRequest, TransportContext) async throws -> Response, stores: Bool
    ) async throws -> Response {
        counts.withLock { $0.misses += 1 }
        let requestTime = clock()
        let generation = generation.withLock { $0 }
        let response = try await next(Self.uncached(request), context)
        if stores {
            await keep(response, for: request, key: key, requestTime: requestTime, generation: generation)
        }
        return Self.tagged(response, status: "NAL; fwd=uri-miss\(stores ? "" : "; detail=no-store")")
    }

    /// Stores `response` when RFC 9111 §3 lets a private cache store it, and nothing was removed since its request
    /// was sent (`generation`): a call under way when `removeAll()` ran does not bring its response back.
    private func keep(
        _ response: Response, for request: URLRequest, key: String, requestTime: Date, generation: Int
    ) async {
        // A redirect the transport followed answered another URL: its response is not this URL's to keep.
        let answered = response.responseURL.map(Self.key) ?? key
        // A request with a Range may be answered whole (200), which is kept, or in part, which is not.
        let whole = request.value(forHTTPHeaderField: "Range") == nil || response.statusCode == 200
        guard answered == key, whole, response.fileURL == nil, response.streamedBody == nil,
            self.generation.withLock({ $0 }) == generation,
            let entry = CacheStorability.entry(
                for: response, request: request, requestTime: requestTime, responseTime: clock(), shared: isShared)
        else { return }
        let stored = await store.store(entry, for: key)
        if self.generation.withLock({ $0 }) != generation {
            await store.remove(key)
            return
        }
        if stored { counts.withLock { $0.stores += 1 } }
    }

    /// Asks the server whether `stored` is still good, with its validators.
    private func revalidate(
        _ stored: CachedResponse, freshness: CacheFreshness, request: URLRequest, key: String,
        context: TransportContext, next: @Sendable (URLRequest, TransportContext) async throws -> Response
    ) async throws -> Response {
        var conditional = Self.uncached(request)
        if let etag = stored.value("ETag") { conditional.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let modified = stored.value("Last-Modified") {
            conditional.setValue(modified, forHTTPHeaderField: "If-Modified-Since")
        }
        let requestTime = clock()
        let generation = generation.withLock { $0 }
        let response: Response
        do {
            response = try await next(conditional, context)
        } catch {
            // A cancelled call is the caller's decision, not a failure to stand in for.
            if !Self.isCancellation(error), stored.allowsStale(afterError: freshness, shared: isShared),
                let stale = served(stored, to: request, age: freshness.age, status: "NAL; hit; detail=stale-if-error")
            {
                return stale
            }
            throw error
        }
        if response.statusCode == 304 {
            // A 304 for another representation than the stored one confirms nothing of it (§4.3.4): ask again,
            // without validators.
            if let confirmed = response.headers["ETag"], let etag = stored.value("ETag"),
                Self.opaque(confirmed) != Self.opaque(etag)
            {
                return try await fromNetwork(request, key: key, context: context, next: next, stores: true)
            }
            let updated = stored.revalidated(by: response, requestTime: requestTime, responseTime: clock())
            if updated.directives.has("no-store") {
                // The server now forbids keeping it: served this once, and gone (§3.2).
                await store.remove(key)
            } else {
                await store.update(updated, for: key, replacing: stored)
            }
            counts.withLock { $0.revalidations += 1 }
            let age = CacheFreshness(updated, now: clock(), shared: isShared).age
            if let served = served(updated, to: request, age: age, status: "NAL; fwd=stale; fwd-status=304") {
                return served
            }
        }
        if (500...599).contains(response.statusCode), stored.allowsStale(afterError: freshness, shared: isShared),
            let stale = served(stored, to: request, age: freshness.age, status: "NAL; hit; detail=stale-if-error")
        {
            return stale
        }
        counts.withLock { $0.misses += 1 }
        await keep(response, for: request, key: key, requestTime: requestTime, generation: generation)
        return Self.tagged(response, status: "NAL; fwd=stale; fwd-status=\(response.statusCode)")
    }

    /// An entity tag without its weakness mark, for the weak comparison of RFC 9110 §8.8.3.2.
    private static func opaque(_ tag: String) -> String {
        let trimmed = tag.trimmingCharacters(in: .whitespaces)
        return trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed
    }

    private static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError || Task.isCancelled { return true }
        if case NALError.cancelled = error { return true }
        return false
    }

    /// `stored` as the response to `request`, with its age and where it came from (`status`, a `Cache-Status` entry);
    /// `nil` when Foundation cannot make its head. A response served without a call counts as a hit.
    ///
    /// A request with a `Range` gets a 206 of the bytes it asks for, cut from a whole stored 200; a range the cache
    /// cannot cut (several ranges, past the end, a stored response that is not a 200) gives `nil`, and the server
    /// answers it.
    private func served(_ stored: CachedResponse, to request: URLRequest, age: Int, status: String) -> Response? {
        var statusCode = stored.statusCode
        var body = stored.body
        var fields = stored.fields.filter { !HTTPToken.equalsIgnoringASCIICase($0.name, "Age") }
        if let range = request.value(forHTTPHeaderField: "Range") {
            guard stored.statusCode == 200, let offsets = CacheRange.offsets(range, length: body.count) else {
                return nil
            }
            let start = body.startIndex + offsets.lowerBound
            body = body.subdata(in: start..<(start + offsets.count))
            statusCode = 206
            fields.removeAll { HTTPToken.equalsIgnoringASCIICase($0.name, "Content-Length") }
            fields.append((name: "Content-Length", value: String(body.count)))
            fields.append(
                (name: "Content-Range", value: "bytes \(offsets.lowerBound)-\(offsets.upperBound)/\(stored.body.count)")
            )
        }
        fields.append((name: "Age", value: String(age)))
        fields.append((name: Self.statusField, value: status))
        guard let url = request.url,
            let response = Response(
                request: request, url: url, statusCode: statusCode, fields: fields, data: body,
                timing: ResponseTiming(start: Date(), duration: .zero))
        else { return nil }
        if status.hasPrefix("NAL; hit") { counts.withLock { $0.hits += 1 } }
        return response
    }

    /// The 504 of `only-if-cached` (RFC 9111 §5.2.1.7), and of `returnCacheDataDontLoad`, when nothing stored fits:
    /// made without a call.
    private func unavailable(_ request: URLRequest) throws -> Response {
        guard let url = request.url,
            let head = HTTPURLResponse(
                url: url, statusCode: 504, httpVersion: "HTTP/1.1",
                headerFields: [Self.statusField: "NAL; fwd=miss; detail=only-if-cached", "Content-Length": "0"])
        else { throw NALError.invalidRequest(.missingURL) }
        return Response(
            request: request, httpResponse: head, data: Data(), timing: ResponseTiming(start: Date(), duration: .zero))
    }

    /// Removes what a successful unsafe request made stale: its URL, and its response's same-origin `Location` and
    /// `Content-Location` (RFC 9111 §4.4).
    private func invalidate(after response: Response, to url: URL) async {
        guard (200..<400).contains(response.statusCode) else { return }
        await store.remove(Self.key(for: url))
        for field in ["Location", "Content-Location"] {
            guard let value = response.headers[field], let target = URL(string: value, relativeTo: url)?.absoluteURL,
                target.scheme?.lowercased() == url.scheme?.lowercased(),
                target.host?.lowercased() == url.host?.lowercased(), target.port == url.port
            else { continue }
            await store.remove(Self.key(for: target))
        }
    }

    /// `response` with `status` added to its `Cache-Status` field.
    static func tagged(_ response: Response, status: String) -> Response {
        var fields = response.headers.fields.map { (name: $0.name, value: $0.value) }
        if let index = fields.firstIndex(where: { HTTPToken.equalsIgnoringASCIICase($0.name, statusField) }) {
            fields[index].value += ", \(status)"
        } else {
            fields.append((name: statusField, value: status))
        }
        return response.replacingFields(with: fields) ?? response
    }
}
