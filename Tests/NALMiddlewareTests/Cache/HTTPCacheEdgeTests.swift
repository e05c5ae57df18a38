import Foundation
import NALCore
import NALLogging
import NALMiddleware
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What happens at the edges of HTTPCache's rules: calls that overlap, failures and cancellation, ranges it cannot
/// cut, requests it lets pass, and how each response is labelled.
@Suite("HTTPCache: races, failures, bypasses and labels")
struct HTTPCacheEdgeTests {
    let clock = TestClock()

    func cache(_ kind: CacheStoreKind) -> HTTPCache {
        let clock = self.clock
        return HTTPCache(storage: kind.storage(maximumBytes: 1 << 20), clock: { clock.now })
    }

    static func endpoint(
        _ path: String = "r", method: HTTPMethod = .get, headers: [String: String]? = nil,
        policy: URLRequest.CachePolicy? = nil, requestType: RequestType = .plain
    ) -> TestEndpoint {
        TestEndpoint(
            path: path, method: method, requestType: requestType, headers: headers, validation: .none,
            cachePolicy: policy)
    }

    static func answer(_ headers: [String: String], status: Int = 200, body: String = "") -> CacheTestOrigin.Answer {
        CacheTestOrigin.Answer(status: status, headers: headers, body: Data(body.utf8))
    }

    @Test(
        "a 304 that arrives after another call stored a newer response does not bring the old one back",
        arguments: CacheStoreKind.allCases)
    func revalidationRace(_ kind: CacheStoreKind) async throws {
        // The held revalidation reaches the origin after the reload: its answer follows its If-None-Match.
        let origin = CacheTestOrigin(clock: clock) { request, index in
            if index == 0 { return Self.answer(["Cache-Control": "max-age=10", "ETag": "\"v1\""], body: "v1") }
            return request.value(forHTTPHeaderField: "If-None-Match") == nil
                ? Self.answer(["Cache-Control": "max-age=100", "ETag": "\"v2\""], body: "v2")
                : Self.answer(["Cache-Control": "max-age=100", "ETag": "\"v1\""], status: 304)
        }
        let held = HeldTransport(origin, holding: 1)
        let client = Client<TestEndpoint>(middleware: [cache(kind)], transport: held)
        _ = try await client.request(Self.endpoint())
        clock.advance(by: 11)
        let revalidating = Task { try await client.request(Self.endpoint()) }
        await held.arrived.wait()
        let newer = try await client.request(Self.endpoint(policy: .reloadIgnoringLocalCacheData))
        #expect(newer.string() == "v2")
        held.release.open()
        #expect(try await revalidating.value.string() == "v1")
        let after = try await client.request(Self.endpoint())
        #expect(HTTPCache.Outcome(after) == .hit)
        #expect(after.string() == "v2")
    }

    @Test(
        "a call under way when removeAll() runs does not store its response afterwards",
        arguments: CacheStoreKind.allCases)
    func removalDuringCall(_ kind: CacheStoreKind) async throws {
        let origin = CacheTestOrigin(clock: clock) { _, _ in Self.answer(["Cache-Control": "max-age=60"], body: "a") }
        let held = HeldTransport(origin, holding: 0)
        let cache = cache(kind)
        let client = Client<TestEndpoint>(middleware: [cache], transport: held)
        let call = Task { try await client.request(Self.endpoint()) }
        await held.arrived.wait()
        await cache.removeAll()
        held.release.open()
        #expect(try await call.value.string() == "a")
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint())) == .network)
        #expect(cache.statistics.stores == 1)
    }

    @Test(
        "stale-if-error stands in for a failed call, but not for a cancelled one",
        arguments: CacheStoreKind.allCases)
    func staleIfErrorAndCancellation(_ kind: CacheStoreKind) async throws {
        let failure = Locked<NALError?>(nil)
        let origin = CacheTestOrigin(clock: clock) { _, index in
            var answer = Self.answer(["Cache-Control": "max-age=10, stale-if-error=60"], body: "stored")
            if index > 0 { answer.failure = failure.withLock { $0 } }
            return answer
        }
        let client = Client<TestEndpoint>(middleware: [cache(kind)], transport: origin)
        _ = try await client.request(Self.endpoint())
        clock.advance(by: 20)
        failure.withLock { $0 = .transport(URLError(.cannotConnectToHost)) }
        let stale = try await client.request(Self.endpoint())
        #expect(HTTPCache.Outcome(stale) == .hit)
        #expect(stale.string() == "stored")
        failure.withLock { $0 = .cancelled }
        await #expect(throws: NALError.self) { _ = try await client.request(Self.endpoint()) }
    }

    @Test(
        "a 304 with another ETag than the stored one confirms nothing: the response is fetched again, whole",
        arguments: CacheStoreKind.allCases)
    func foreignNotModified(_ kind: CacheStoreKind) async throws {
        let origin = CacheTestOrigin(clock: clock) { request, index in
            switch index {
            case 0: Self.answer(["Cache-Control": "max-age=10", "ETag": "\"v1\""], body: "v1")
            case 1: Self.answer(["ETag": "\"v2\""], status: 304)
            default:
                Self.answer(
                    [
                        "Cache-Control": "max-age=10", "ETag": "\"v2\"",
                        "X-Conditional": request.value(forHTTPHeaderField: "If-None-Match") ?? "none",
                    ], body: "v2")
            }
        }
        let client = Client<TestEndpoint>(middleware: [cache(kind)], transport: origin)
        _ = try await client.request(Self.endpoint())
        clock.advance(by: 11)
        let response = try await client.request(Self.endpoint())
        #expect(response.string() == "v2")
        #expect(response.headers["X-Conditional"] == "none")
    }

    @Test(
        "a 304's Content-Length (its own empty body's) does not replace the stored response's",
        arguments: CacheStoreKind.allCases)
    func framingKeptOnUpdate(_ kind: CacheStoreKind) async throws {
        let origin = CacheTestOrigin(clock: clock) { _, index in
            index == 0
                ? Self.answer(["Cache-Control": "max-age=10", "ETag": "\"v1\"", "Content-Length": "6"], body: "stored")
                : Self.answer(["Cache-Control": "max-age=10", "ETag": "\"v1\"", "Content-Length": "0"], status: 304)
        }
        let client = Client<TestEndpoint>(middleware: [cache(kind)], transport: origin)
        _ = try await client.request(Self.endpoint())
        clock.advance(by: 11)
        let response = try await client.request(Self.endpoint())
        #expect(HTTPCache.Outcome(response) == .revalidated)
        #expect(response.headers["Content-Length"] == "6")
    }

    @Test(
        "a range the cache cannot cut goes to the server as sent, never a bare 304; offline, it is a 504",
        arguments: CacheStoreKind.allCases)
    func uncutRanges(_ kind: CacheStoreKind) async throws {
        let origin = CacheTestOrigin(clock: clock) { request, _ in
            request.value(forHTTPHeaderField: "Range") == nil
                ? Self.answer(["Cache-Control": "max-age=10", "ETag": "\"v1\""], body: "0123456789")
                : Self.answer(
                    [
                        "Content-Range": "bytes 0-1/10",
                        "X-Conditional": request.value(forHTTPHeaderField: "If-None-Match") ?? "none",
                    ],
                    status: 206, body: "01")
        }
        let client = Client<TestEndpoint>(middleware: [cache(kind)], transport: origin)
        _ = try await client.request(Self.endpoint())
        clock.advance(by: 11)
        let several = try await client.request(Self.endpoint(headers: ["Range": "bytes=0-1,4-5"]))
        #expect(several.statusCode == 206)
        #expect(several.headers["X-Conditional"] == "none")
        #expect(HTTPCache.Outcome(several) == .network)
        let offline = try await client.request(
            Self.endpoint(headers: ["Range": "bytes=20-"], policy: .returnCacheDataDontLoad))
        #expect(offline.statusCode == 504)
        #expect(HTTPCache.Outcome(offline) == .unavailable)
        #expect(origin.requests.count == 2)
    }

    @Test(
        "only-if-cached with nothing stored is unavailable; a POST, a HEAD and a caller's conditional GET pass, labelled network",
        arguments: CacheStoreKind.allCases)
    func labels(_ kind: CacheStoreKind) async throws {
        let origin = CacheTestOrigin(clock: clock) { _, _ in
            // An origin that claims a hit of NAL's own cannot mislabel what passes through.
            Self.answer(["Cache-Control": "max-age=60", "Cache-Status": "NAL; hit"], body: "x")
        }
        let client = Client<TestEndpoint>(middleware: [cache(kind)], transport: origin)
        let offline = try await client.request(Self.endpoint(headers: ["Cache-Control": "only-if-cached"]))
        #expect(HTTPCache.Outcome(offline) == .unavailable)
        #expect(origin.requests.isEmpty)
        for endpoint in [
            Self.endpoint(method: .post), Self.endpoint(method: .head),
            Self.endpoint(headers: ["If-None-Match": "\"a\""]),
        ] {
            #expect(HTTPCache.Outcome(try await client.request(endpoint)) == .network)
        }
        #expect(origin.requests.count == 3)
    }

    @Test(
        "a shared cache keeps no private response and no answer to Authorization unless allowed, and reads s-maxage first",
        arguments: CacheStoreKind.allCases)
    func sharedCache(_ kind: CacheStoreKind) async throws {
        let clock = self.clock
        let shared = HTTPCache(storage: kind.storage(maximumBytes: 1 << 20), isShared: true, clock: { clock.now })
        let origin = CacheTestOrigin(clock: clock) { request, _ in
            switch request.url?.lastPathComponent {
            case "private": Self.answer(["Cache-Control": "private, max-age=60"])
            case "public": Self.answer(["Cache-Control": "public, max-age=60"])
            case "s-maxage": Self.answer(["Cache-Control": "max-age=5, s-maxage=60"])
            case "short": Self.answer(["Cache-Control": "max-age=60, s-maxage=5"])
            default: Self.answer(["Cache-Control": "max-age=60"])
            }
        }
        let client = Client<TestEndpoint>(middleware: [shared], transport: origin)
        let secret = ["Authorization": "Bearer t"]
        func twice(_ path: String, _ headers: [String: String]? = nil) async throws -> HTTPCache.Outcome? {
            _ = try await client.request(Self.endpoint(path, headers: headers))
            return HTTPCache.Outcome(try await client.request(Self.endpoint(path, headers: headers)))
        }
        #expect(try await twice("private") == .network)
        #expect(try await twice("plain", secret) == .network)
        #expect(try await twice("public", secret) == .hit)
        _ = try await client.request(Self.endpoint("s-maxage"))
        _ = try await client.request(Self.endpoint("short"))
        clock.advance(by: 10)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("s-maxage"))) == .hit)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("short"))) == .network)
        #expect(shared.isShared)
        // The same responses, privately: private and an Authorization's are kept, max-age is read.
        let ownCache = Client<TestEndpoint>(
            middleware: [HTTPCache(storage: kind.storage(maximumBytes: 1 << 20), clock: { clock.now })],
            transport: origin)
        _ = try await ownCache.request(Self.endpoint("private"))
        #expect(HTTPCache.Outcome(try await ownCache.request(Self.endpoint("private"))) == .hit)
    }

    @Test(
        "a response to one Authorization is served only to the same one; Vary: Cookie without a Cookie field is not kept",
        arguments: CacheStoreKind.allCases)
    func accountsKeptApart(_ kind: CacheStoreKind) async throws {
        let origin = CacheTestOrigin(clock: clock) { request, index in
            let vary = request.url?.lastPathComponent == "cookies" ? ["Vary": "Cookie"] : [:]
            return Self.answer(vary.merging(["Cache-Control": "max-age=60"]) { first, _ in first }, body: "#\(index)")
        }
        let client = Client<TestEndpoint>(middleware: [cache(kind)], transport: origin)
        let alice = ["Authorization": "Bearer alice"]
        _ = try await client.request(Self.endpoint("me", headers: alice))
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("me", headers: alice))) == .hit)
        let bob = try await client.request(Self.endpoint("me", headers: ["Authorization": "Bearer bob"]))
        #expect(HTTPCache.Outcome(bob) == .network)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("me"))) == .network)
        // The transport, below the cache, may add stored cookies the cache never sees.
        _ = try await client.request(Self.endpoint("cookies"))
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("cookies"))) == .network)
        _ = try await client.request(Self.endpoint("cookies", headers: ["Cookie": "sid=1"]))
        #expect(
            HTTPCache.Outcome(try await client.request(Self.endpoint("cookies", headers: ["Cookie": "sid=1"]))) == .hit)
    }

    @Test(
        "one URL keeps at most 32 variants however many values its Vary field takes; the newest stay",
        arguments: CacheStoreKind.allCases)
    func variantsBounded(_ kind: CacheStoreKind) async throws {
        let origin = CacheTestOrigin(clock: clock) { _, _ in
            Self.answer(["Cache-Control": "max-age=60", "Vary": "X-Id"])
        }
        let client = Client<TestEndpoint>(middleware: [cache(kind)], transport: origin)
        for id in 0..<40 { _ = try await client.request(Self.endpoint(headers: ["X-Id": "\(id)"])) }
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint(headers: ["X-Id": "39"]))) == .hit)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint(headers: ["X-Id": "8"]))) == .hit)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint(headers: ["X-Id": "7"]))) == .network)
    }

    @Test("a 304 whose fields make the response too large for the memory store removes it; stores counts what was kept")
    func growthAndCounts() async throws {
        let big = String(repeating: "x", count: 3000)
        let origin = CacheTestOrigin(clock: clock) { request, index in
            if request.url?.lastPathComponent == "huge" {
                return Self.answer(["Cache-Control": "max-age=60"], body: String(repeating: "h", count: 5000))
            }
            return index == 0
                ? Self.answer(["Cache-Control": "max-age=10", "ETag": "\"v1\""], body: "small")
                : Self.answer(["Cache-Control": "max-age=10", "ETag": "\"v1\"", "X-Big": big], status: 304)
        }
        let clock = self.clock
        let cache = HTTPCache(storage: .memory(maximumBytes: 2000), clock: { clock.now })
        let client = Client<TestEndpoint>(middleware: [cache], transport: origin)
        _ = try await client.request(Self.endpoint())
        clock.advance(by: 11)
        #expect(try await client.request(Self.endpoint()).headers["X-Big"] == big)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint())) == .network)
        _ = try await client.request(Self.endpoint("huge"))
        #expect(cache.statistics.stores == 1)  // the first; not the one too large to keep
    }

    @Test("dump(cache) shows its settings and counts, never what it stores")
    func mirrorShowsNoResponses() async throws {
        let origin = CacheTestOrigin(clock: clock) { _, _ in
            Self.answer(["Cache-Control": "max-age=60", "X-Secret": "s3cr3t-value"], body: "private body")
        }
        let cache = cache(.memory)
        _ = try await Client<TestEndpoint>(middleware: [cache], transport: origin).request(Self.endpoint())
        var text = ""
        dump(cache, to: &text)
        #expect(text.contains("statistics"))
        #expect(!text.contains("s3cr3t-value") && !text.contains("private body"))
    }

    @Test(
        "a POST to the same URL spelt otherwise (scheme and host case, the default port) invalidates it",
        arguments: CacheStoreKind.allCases)
    func spellingsOfOneURL(_ kind: CacheStoreKind) async throws {
        let origin = CacheTestOrigin(clock: clock) { _, _ in Self.answer(["Cache-Control": "max-age=60"]) }
        let client = Client<TestEndpoint>(middleware: [cache(kind)], transport: origin)
        _ = try await client.request(Self.endpoint())
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint())) == .hit)
        var shouting = Self.endpoint(method: .post)
        let base = try #require(URLComponents(url: TestEndpoint.exampleBase, resolvingAgainstBaseURL: false))
        shouting.baseURL = try #require(
            URL(string: "HTTPS://\(base.host?.uppercased() ?? ""):443\(base.path)"))
        _ = try await client.request(shouting)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint())) == .network)
    }

    @Test(
        "a 304 that says no-store serves the stored response once, then it is gone", arguments: CacheStoreKind.allCases)
    func notModifiedWithNoStore(_ kind: CacheStoreKind) async throws {
        let origin = CacheTestOrigin(clock: clock) { _, index in
            index == 0
                ? Self.answer(["Cache-Control": "max-age=10", "ETag": "\"v1\""], body: "stored")
                : Self.answer(["Cache-Control": "no-store", "ETag": "\"v1\""], status: 304)
        }
        let client = Client<TestEndpoint>(middleware: [cache(kind)], transport: origin)
        _ = try await client.request(Self.endpoint())
        clock.advance(by: 11)
        let once = try await client.request(Self.endpoint())
        #expect(HTTPCache.Outcome(once) == .revalidated)
        #expect(once.string() == "stored")
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint())) == .network)
    }

    @Test("Outcome reads NAL's own member of Cache-Status, exactly")
    func outcomeParsing() throws {
        func outcome(_ status: String) throws -> HTTPCache.Outcome? {
            let url = try #require(URL(string: "https://example.com/r"))
            let head = try #require(
                HTTPURLResponse(
                    url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Cache-Status": status]))
            return HTTPCache.Outcome(
                Response(
                    request: URLRequest(url: url), httpResponse: head, data: Data(),
                    timing: ResponseTiming(start: Date(), duration: .zero)))
        }
        #expect(try outcome("NAL; hit") == .hit)
        #expect(try outcome("CDN; hit, NAL; fwd=uri-miss") == .network)
        #expect(try outcome("NAL; fwd=stale; fwd-status=304") == .revalidated)
        #expect(try outcome("NAL; fwd=miss; detail=only-if-cached") == .unavailable)
        #expect(try outcome("NALX; hit") == nil)
        #expect(try outcome("CDN; hit") == nil)
    }

    @Test("offline (returnCacheDataDontLoad), a download with nothing stored gets a 504 without a call")
    func offlineDownload() async throws {
        let origin = CacheTestOrigin(clock: clock) { _, _ in Self.answer([:], body: "file") }
        let client = Client<TestEndpoint>(middleware: [cache(.memory)], transport: origin)
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nal-offline-\(UUID().uuidString)")
        let response = try await client.request(
            Self.endpoint(policy: .returnCacheDataDontLoad, requestType: .download(.file(destination, options: []))))
        #expect(response.statusCode == 504)
        #expect(origin.requests.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test("a range is not cut from a body a transport decoded (its Content-Encoding still says gzip)")
    func codedBodiesAreNotCut() async throws {
        let origin = CacheTestOrigin(clock: clock) { request, _ in
            request.value(forHTTPHeaderField: "Range") == nil
                ? Self.answer(["Cache-Control": "max-age=60", "Content-Encoding": "gzip"], body: "decoded body")
                : Self.answer(["Content-Range": "bytes 0-1/30"], status: 206, body: "\u{1f}\u{8b}")
        }
        let client = Client<TestEndpoint>(middleware: [cache(.memory)], transport: origin)
        _ = try await client.request(Self.endpoint())
        let part = try await client.request(Self.endpoint(headers: ["Range": "bytes=0-1"]))
        #expect(HTTPCache.Outcome(part) == .network)
        #expect(origin.requests.count == 2)
    }

    @Test("a folder deleted while the cache uses it is made again at the next store")
    func deletedFolder() async throws {
        let folder = CacheStoreKind.newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = CacheTestOrigin(clock: clock) { request, _ in
            Self.answer(["Cache-Control": "max-age=60"], body: request.url?.lastPathComponent ?? "")
        }
        let client = Client<TestEndpoint>(
            middleware: [HTTPCache(storage: .directory(folder, maximumBytes: 1 << 20))], transport: origin)
        _ = try await client.request(Self.endpoint("a"))
        try FileManager.default.removeItem(at: folder)
        _ = try await client.request(Self.endpoint("b"))
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names.filter { $0.hasSuffix(".entry") }.count == 1)
        #expect(HTTPCache.Outcome(try await client.request(Self.endpoint("b"))) == .hit)
    }

    @Test("a folder store removes the files a stopped process left mid-write when it opens the folder")
    func leftoverTemporaryFiles() async throws {
        let folder = CacheStoreKind.newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let leftover = folder.appendingPathComponent(".tmp-left-by-a-crash")
        try Data(repeating: 1, count: 1000).write(to: leftover)
        let origin = CacheTestOrigin(clock: clock) { _, _ in Self.answer(["Cache-Control": "max-age=60"], body: "x") }
        let client = Client<TestEndpoint>(
            middleware: [HTTPCache(storage: .directory(folder, maximumBytes: 1 << 20))], transport: origin)
        _ = try await client.request(Self.endpoint())
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
    }
}
