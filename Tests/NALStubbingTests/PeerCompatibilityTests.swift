import Foundation
import NALCore
import NALLogging
import NALStubbing
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What users of Mocker, OHHTTPStubs and objc-mocktail bring, run against NAL.
@Suite("What peers' users bring")
struct PeerCompatibilityTests {
    static let base = "https://api.example.com"

    @Test("objc-mocktail's original format (a bare content type on line 4) loads; patterns match in any case")
    func originalMocktailFormat() async throws {
        let server = StubServer()
        try server.loadTails(from: Fixtures.root.appendingPathComponent("tails/original-format"))
        let client = PlainClient(server)
        let profile = try await client.fetch(Self.base + "/original/Profile")
        #expect(profile.status == 200 && profile.body == #"{"format": "objc-mocktail"}"# + "\n")
        // The method pattern is `post|PUT`: a POST matches it only when the pattern ignores case, as Mocktail's does.
        let upload = try await client.fetch(Self.base + "/Original/Upload", method: "POST", body: Data("x".utf8))
        #expect(upload.status == 202 && upload.body == "accepted")
    }

    @Test("cookies a stub sets are stored and sent back, as on the network; a session that refuses cookies keeps none")
    func stubbedCookies() async throws {
        let server = StubServer()
        server.stub(
            .path("/login"),
            response: StubResponse(status: 200, headers: ["Set-Cookie": "session=abc123; Path=/"], body: Data()))
        server.stub(.path("/me")) { request in
            .string(request.value(forHTTPHeaderField: "Cookie") ?? "no cookie")
        }
        let client = PlainClient(server)
        _ = try await client.fetch(Self.base + "/login")
        #expect(try await client.fetch(Self.base + "/me").body == "session=abc123")

        let refusing = server.makeSessionConfiguration()
        refusing.httpCookieAcceptPolicy = .never
        let session = URLSession(configuration: refusing)
        _ = try await session.data(from: try #require(URL(string: Self.base + "/login")))
        let (data, _) = try await session.data(from: try #require(URL(string: Self.base + "/me")))
        #expect(String(decoding: data, as: UTF8.self) == "no cookie")
    }

    struct OwnError: Error, Equatable {
        let code: Int
    }

    /// corelibs-foundation's `URLError.Code` is a closed enum: a code it lacks travels as an `NSError` of
    /// `NSURLErrorDomain`, through `.error(_:)`.
    @Test("a stub fails with the test's own error, an NSError of any domain, or a URL error code corelibs lacks")
    func customErrors() async throws {
        let server = StubServer()
        server.stub(.path("/own"), response: .error(OwnError(code: 7)))
        server.stub(.path("/nserror"), response: .error(NSError(domain: "com.example.bank", code: 42)))
        server.stub(.path("/odd"), response: .error(NSError(domain: NSURLErrorDomain, code: -1234)))
        server.stub(.path("/thrown")) { _ in throw OwnError(code: 9) }
        let client = PlainClient(server)
        await #expect(throws: OwnError(code: 7)) { _ = try await client.fetch(Self.base + "/own") }
        await #expect(throws: OwnError(code: 9)) { _ = try await client.fetch(Self.base + "/thrown") }
        do {
            _ = try await client.fetch(Self.base + "/nserror")
        } catch let error as NSError {
            #expect(error.domain == "com.example.bank" && error.code == 42)
        }
        do {
            _ = try await client.fetch(Self.base + "/odd")
        } catch let error as NSError {
            #expect(error.domain == NSURLErrorDomain && error.code == -1234)
        }
        // Through NAL's transport the error is kept as the underlying error of NALError.transport.
        do {
            _ = try await server.client().request(
                TestEndpoint(baseURL: try #require(URL(string: Self.base)), path: "own"))
            Issue.record("the stubbed error passed")
        } catch {
            guard case .transport(let urlError)? = error as? NALError else {
                Issue.record("expected a transport error, got \(error)")
                return
            }
            #expect(urlError.userInfo[NSUnderlyingErrorKey] as? OwnError == OwnError(code: 7))
        }
        // StubTransport throws a stubbed NALError as it is.
        let transport = StubTransport<TestEndpoint>(.custom { _ in .error(NALError.cancelled) })
        do {
            _ = try await Client<TestEndpoint>(transport: transport).request(TestEndpoint())
        } catch {
            guard case .cancelled = error else {
                Issue.record("expected .cancelled, got \(error)")
                return
            }
        }
    }

    @Test(
        "ignored requests go to the network while every other unmatched request still fails",
        .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
    func ignoreList() async throws {
        let url = try #require(FaultServer.url)
        let server = StubServer()
        server.ignore(.host(try #require(url.host)) && .path("/fast"))
        server.stub(.path("/fast"), response: .string("stubbed, but ignored"))
        let client = PlainClient(server)
        #expect(try await client.fetch(url.absoluteString + "/fast").body == "fast")
        await #expect(throws: URLError.self) { _ = try await client.fetch(url.absoluteString + "/echo") }
    }

    @Test("a delivery callback runs once the stub's response has been delivered, with the request")
    func deliveryCallback() async throws {
        let delivered = Locked<[String]>([])
        let server = StubServer()
        let note: @Sendable (RecordedRequest) -> Void = { request in
            delivered.withLock { $0.append("\(request.method) \(request.url.path)") }
        }
        server.stub(.path("/a"), response: StubResponse.string("a").whenDelivered(note))
        _ = try await PlainClient(server).fetch(Self.base + "/a")
        // The callback runs on the protocol's thread after the finish reached the client, which may see its
        // answer a moment earlier.
        for _ in 0..<100 where delivered.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(delivered.withLock { $0 } == ["GET /a"])
        let transport = StubTransport<TestEndpoint>(.custom { _ in StubResponse.string("t").whenDelivered(note) })
        _ = try await Client<TestEndpoint>(transport: transport).request(TestEndpoint(path: "t"))
        #expect(delivered.withLock { $0 } == ["GET /a", "GET /v1/t"])
    }

    @Test("queryItems tells ?flag from ?flag= and from a missing flag, as OHHTTPStubs' containsQueryParams does")
    func valuelessQueryItems() {
        func request(_ query: String) -> RecordedRequest {
            RecordedRequest(method: "GET", url: URL(string: Self.base + "/x" + query) ?? URL(fileURLWithPath: "/"))
        }
        let bare = RequestMatcher.queryItems(["flag": nil])
        let empty = RequestMatcher.queryItems(["flag": ""])
        #expect(bare.matches(request("?flag")) && !bare.matches(request("?flag=")) && !bare.matches(request("?other")))
        #expect(empty.matches(request("?flag=")) && !empty.matches(request("?flag")))
    }

    @Test("a query key sent twice is matched on its first value; a URL without a path has the path /")
    func repeatedKeysAndBarePaths() throws {
        let twice = RecordedRequest(method: "GET", url: try #require(URL(string: Self.base + "/x?page=1&page=2")))
        #expect(twice.queryItems == ["page": "1"])
        #expect(RequestMatcher.queryItems(["page": "1"]).matches(twice))
        #expect(!RequestMatcher.queryItems(["page": "2"]).matches(twice))
        let bare = RecordedRequest(method: "GET", url: try #require(URL(string: Self.base)))
        #expect(bare.path == "/")
        #expect(RequestMatcher.path("/").matches(bare))
    }

    @Test("a later stub overrides a more specific earlier one when it says so with a priority")
    func priorities() async throws {
        let server = StubServer()
        server.stub(.method(.get) && .host("api.example.com") && .path("/users/1"), response: .string("specific"))
        server.stub(.pathPrefix("/users/"), response: .string("override"), priority: 1)
        server.stub(.pathPrefix("/users/"), response: .string("not this"))
        #expect(try await PlainClient(server).fetch(Self.base + "/users/1").body == "override")
    }

    @Test("path matchers compare the path as sent: a trailing slash and percent escapes count")
    func encodedPaths() async throws {
        func request(_ path: String) -> RecordedRequest {
            RecordedRequest(method: "GET", url: URL(string: Self.base + path) ?? URL(fileURLWithPath: "/"))
        }
        #expect(RequestMatcher.path("/users/").matches(request("/users/")))
        #expect(!RequestMatcher.path("/users/").matches(request("/users")))
        #expect(RequestMatcher.pathPrefix("/v2/").matches(request("/v2/")))
        #expect(RequestMatcher.path("/files/a%20b").matches(request("/files/a%20b")))
        #expect(RequestMatcher.pathRegex("^/files/a%20b$").matches(request("/files/a%20b")))
        #expect(RequestMatcher.path("/users/{id}/").matches(request("/users/7/")))
        let server = StubServer()
        server.stub(.method(.get) && .host("api.example.com") && .path("/files/a%20b/"), response: .string("indexed"))
        #expect(try await PlainClient(server).fetch(Self.base + "/files/a%20b/").body == "indexed")
    }

    @Test("precedence with || and !: an alternation is as specific as its weakest side, a negation barely")
    func alternationSpecificity() async throws {
        let server = StubServer()
        // Both match /a/b: the alternation counts as its prefix side (23), below the longer prefix (24).
        server.stub(.path("/a/b") || .pathPrefix("/z/"), response: .string("alternation"))
        server.stub(.pathPrefix("/a/b"), response: .string("longer prefix"))
        // Both match GET /q: a negation (1) loses to a method (5), however specific its inside.
        server.stub(!.path("/nothing/here"), response: .string("negation"))
        server.stub(.method(.get), response: .string("method"))
        let client = PlainClient(server)
        #expect(try await client.fetch(Self.base + "/a/b").body == "longer prefix")
        #expect(try await client.fetch(Self.base + "/q").body == "method")
    }
}
