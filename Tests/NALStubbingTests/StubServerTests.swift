import Foundation
import NALCore
import NALLogging
import NALStubbing
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests through a plain `URLSession` made from a stub server's configuration.
struct PlainClient {
    let session: URLSession

    init(_ server: StubServer) {
        session = URLSession(configuration: server.sessionConfiguration)
    }

    func fetch(
        _ url: String, method: String = "GET", headers: [String: String] = [:], body: Data? = nil
    ) async throws -> (status: Int, body: String, url: URL?) {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, String(decoding: data, as: UTF8.self), http.url)
    }
}

extension StubServer {
    /// A Client whose URLSessionTransport is answered by this server.
    func client(redirectPolicy: RedirectPolicy = .follow) -> Client<TestEndpoint> {
        Client<TestEndpoint>(
            transport: URLSessionTransport(configuration: sessionConfiguration, redirectPolicy: redirectPolicy))
    }
}

@Suite("StubServer")
struct StubServerTests {
    static let base = "https://api.example.com"

    struct MatcherCase: Sendable, CustomTestStringConvertible {
        let name: String
        let matcher: RequestMatcher
        let matching: RecordedRequest
        let other: RecordedRequest
        var testDescription: String { name }
    }

    static func request(
        _ method: String = "GET", _ url: String, headers: [String: String] = [:], body: String = ""
    ) -> RecordedRequest {
        RecordedRequest(
            method: method, url: URL(string: url) ?? URL(fileURLWithPath: "/"), headers: headers,
            body: Data(body.utf8))
    }

    static let matcherCases: [MatcherCase] = [
        MatcherCase(
            name: "method (any case for the standard ones)", matcher: .method(.post),
            matching: request("post", "\(base)/a"), other: request("GET", "\(base)/a")),
        MatcherCase(
            name: "url, exact", matcher: .url(URL(string: "\(base)/a?x=1") ?? URL(fileURLWithPath: "/")),
            matching: request(url: "\(base)/a?x=1"), other: request(url: "\(base)/a?x=2")),
        MatcherCase(
            name: "host, any case", matcher: .host("API.example.com"), matching: request(url: "\(base)/a"),
            other: request(url: "https://other.example.com/a")),
        MatcherCase(
            name: "path, exact", matcher: .path("/users/42"), matching: request(url: "\(base)/users/42"),
            other: request(url: "\(base)/users/42/repos")),
        MatcherCase(
            name: "path template", matcher: .path("/users/{id}/repos"), matching: request(url: "\(base)/users/7/repos"),
            other: request(url: "\(base)/users//repos")),
        MatcherCase(
            name: "path prefix", matcher: .pathPrefix("/v2/"), matching: request(url: "\(base)/v2/items"),
            other: request(url: "\(base)/v1/items")),
        MatcherCase(
            name: "path regex", matcher: .pathRegex("^/items/[0-9]+$"), matching: request(url: "\(base)/items/12"),
            other: request(url: "\(base)/items/x")),
        MatcherCase(
            name: "query, a subset", matcher: .query(["q": "swift nio"]),
            matching: request(url: "\(base)/search?page=2&q=swift%20nio"), other: request(url: "\(base)/search?q=swift")
        ),
        MatcherCase(
            name: "header value", matcher: .header("X-Api-Key", "k1"),
            matching: request(url: "\(base)/a", headers: ["x-api-key": "k1"]),
            other: request(url: "\(base)/a", headers: ["X-Api-Key": "k2"])),
        MatcherCase(
            name: "header present", matcher: .hasHeader("Authorization"),
            matching: request(url: "\(base)/a", headers: ["Authorization": "x"]), other: request(url: "\(base)/a")),
        MatcherCase(
            name: "body bytes", matcher: .body(Data("abc".utf8)), matching: request("POST", "\(base)/a", body: "abc"),
            other: request("POST", "\(base)/a", body: "abd")),
        MatcherCase(
            name: "JSON body, equivalent", matcher: .jsonBody(Data(#"{"a":1,"b":[true,null]}"#.utf8)),
            matching: request("POST", "\(base)/a", body: #"{ "b": [true, null], "a": 1 }"#),
            other: request("POST", "\(base)/a", body: #"{"a":2,"b":[true,null]}"#)),
        MatcherCase(
            name: "form body, a subset", matcher: .formBody(["name": "Ada Lovelace"]),
            matching: request("POST", "\(base)/a", body: "lang=en&name=Ada+Lovelace"),
            other: request("POST", "\(base)/a", body: "name=Ada")),
        MatcherCase(
            name: "predicate",
            matcher: .predicate("even id") { ($0.url.lastPathComponent.last?.wholeNumberValue ?? 1) % 2 == 0 },
            matching: request(url: "\(base)/items/4"), other: request(url: "\(base)/items/5")),
        MatcherCase(
            name: "&&", matcher: .method(.get) && .path("/a"), matching: request(url: "\(base)/a"),
            other: request("POST", "\(base)/a")),
        MatcherCase(
            name: "||", matcher: .path("/a") || .path("/b"), matching: request(url: "\(base)/b"),
            other: request(url: "\(base)/c")),
        MatcherCase(
            name: "!", matcher: !.hasHeader("Authorization"), matching: request(url: "\(base)/a"),
            other: request(url: "\(base)/a", headers: ["Authorization": "x"])),
    ]

    static func request(url: String, headers: [String: String] = [:]) -> RecordedRequest {
        request("GET", url, headers: headers)
    }

    @Test("every matcher accepts what it should and nothing else", arguments: matcherCases)
    func matchers(testCase: MatcherCase) {
        #expect(testCase.matcher.matches(testCase.matching))
        #expect(!testCase.matcher.matches(testCase.other))
    }

    @Test("every matcher works through a real URLSession")
    func matcherThroughURLSession() async throws {
        let server = StubServer()
        server.stub(
            .method(.post) && .path("/orders") && .jsonBody(Data(#"{"item":1}"#.utf8)), response: .string("order"))
        let result = try await PlainClient(server).fetch(
            "\(Self.base)/orders", method: "POST", headers: ["Content-Type": "application/json"],
            body: Data(#"{ "item" : 1 }"#.utf8))
        #expect(result.body == "order")
    }

    @Test("precedence: the most specific stub wins, then the most recent")
    func precedence() async throws {
        let server = StubServer()
        server.stub(.path("/users/42"), response: .string("exact path"))
        server.stub(.path("/users/{id}"), response: .string("template"))
        server.stub(.pathPrefix("/users/"), response: .string("prefix"))
        server.stub(.method(.get) && .host("api.example.com") && .path("/users/7"), response: .string("indexed, older"))
        server.stub(.method(.get) && .host("api.example.com") && .path("/users/7"), response: .string("indexed, newer"))
        server.stub(
            .url(URL(string: "\(Self.base)/users/9?full=1") ?? URL(fileURLWithPath: "/")), response: .string("url"))
        server.stub(.method(.get) && .host("api.example.com") && .path("/users/9"), response: .string("indexed"))
        let client = PlainClient(server)
        #expect(try await client.fetch("\(Self.base)/users/42").body == "exact path")
        #expect(try await client.fetch("\(Self.base)/users/5").body == "template")
        #expect(try await client.fetch("\(Self.base)/users/5/repos").body == "prefix")
        #expect(try await client.fetch("\(Self.base)/users/7").body == "indexed, newer")
        #expect(try await client.fetch("\(Self.base)/users/9?full=1").body == "url")
        #expect(try await client.fetch("\(Self.base)/users/9").body == "indexed")
    }

    @Test("a sequence answers in order, then falls through; a handler answers per request; stubs can be removed")
    func sequencesHandlersRemoval() async throws {
        let server = StubServer()
        let fallback = server.stub(.path("/flaky"), response: .string("fallback"))
        server.stub(
            .path("/flaky"), responses: [.string("one", status: 500), .string("two", status: 500), .string("three")])
        let client = PlainClient(server)
        var seen: [String] = []
        for _ in 0..<5 { seen.append(try await client.fetch("\(Self.base)/flaky").body) }
        #expect(seen == ["one", "two", "three", "fallback", "fallback"])
        server.remove(fallback)
        do {
            _ = try await client.fetch("\(Self.base)/flaky")
            Issue.record("an exhausted sequence answered")
        } catch let error as URLError {
            #expect(
                error.localizedDescription.contains(
                    "path /flaky (a sequence of 3): path /flaky matched; "
                        + "all 3 responses of its sequence were served"), "\(error.localizedDescription)")
        }

        server.stub(.path("/echo")) { request in
            .string("\(request.httpMethod ?? "") \(String(decoding: request.httpBody ?? Data(), as: UTF8.self))")
        }
        #expect(try await client.fetch("\(Self.base)/echo", method: "PUT", body: Data("hi".utf8)).body == "PUT hi")
        server.removeAll()
        await #expect(throws: URLError.self) { try await client.fetch("\(Self.base)/echo") }
    }

    @Test("an unmatched request fails with a report of the closest stubs and why each did not match")
    func unmatchedReport() async throws {
        let server = StubServer()
        server.stub(.method(.get) && .path("/users/{id}") && .hasHeader("X-Api-Key"), response: .string("user"))
        server.stub(.method(.post) && .path("/orders"), response: .string("order"))
        server.stub(.host("elsewhere.example.com"), response: .string("other host"))
        server.stub(.method(.delete) && .path("/users/{id}"), response: .string("deleted"))
        do {
            _ = try await PlainClient(server).fetch("\(Self.base)/users/42")
            Issue.record("an unmatched request was answered")
        } catch let error as URLError {
            #expect(error.code == .resourceUnavailable)
            #expect(
                error.localizedDescription == """
                    No stub matches GET https://api.example.com/users/42. Closest stubs:
                      1. method GET && path /users/{id} && header X-Api-Key present: method GET matched; path /users/{id} matched; header X-Api-Key missing
                      2. method DELETE && path /users/{id}: method DELETE expected, got GET; path /users/{id} matched
                      3. method POST && path /orders: method POST expected, got GET; path /orders did not match /users/42
                    """)
        }
        let empty = StubServer()
        do {
            _ = try await PlainClient(empty).fetch("\(Self.base)/x")
        } catch let error as URLError {
            #expect(
                error.localizedDescription == "No stub matches GET https://api.example.com/x: the server has no stubs.")
        }
    }

    @Test("redirects for plain URLSession clients are followed in the stub layer; the response URL is the last one")
    func redirectsInTheStubLayer() async throws {
        let server = StubServer()
        server.stub(.path("/old"), response: .redirect(to: try #require(URL(string: "\(Self.base)/new")), status: 302))
        server.stub(.path("/keep"), response: .redirect(to: try #require(URL(string: "\(Self.base)/new")), status: 307))
        server.stub(
            .path("/away"),
            response: .redirect(to: try #require(URL(string: "https://other.example.com/new")), status: 308))
        server.stub(.path("/new")) { request in
            .string("\(request.httpMethod ?? "") \(String(decoding: request.httpBody ?? Data(), as: UTF8.self))")
        }
        let client = PlainClient(server)
        let post302 = try await client.fetch("\(Self.base)/old", method: "POST", body: Data("x".utf8))
        #expect(post302.body == "GET ")
        #expect(post302.url?.absoluteString == "\(Self.base)/new")
        #expect(
            try await client.fetch("\(Self.base)/keep", method: "POST", body: Data("kept".utf8)).body == "POST kept")
        let away = try await client.fetch(
            "\(Self.base)/away", method: "PUT", headers: ["Authorization": "Bearer s"], body: Data("b".utf8))
        #expect(away.body == "PUT b")
        let sentAway = server.requests(matching: .host("other.example.com"))
        #expect(sentAway.count == 1)
        #expect(sentAway.first?.header("Authorization") == nil)
    }

    @Test("NAL's transport gets the 3xx itself and follows it by its own policy")
    func redirectsWithNAL() async throws {
        let server = StubServer()
        server.stub(.path("/v1/old"), response: .redirect(to: try #require(URL(string: "\(Self.base)/v1/new"))))
        server.stub(.path("/v1/new"), response: .string("arrived"))
        let endpoint = TestEndpoint(baseURL: try #require(URL(string: "\(Self.base)/v1")), path: "old")
        #expect(try await server.client().request(endpoint).string() == "arrived")
        #expect(server.requests.map(\.url.path) == ["/v1/old", "/v1/new"])
        #expect(server.requests.allSatisfy { $0.header("X-NAL-Transport") == nil }, "the marker never shows")
        let unfollowed = try await server.client(redirectPolicy: .doNotFollow).request(
            TestEndpoint(baseURL: endpoint.baseURL, path: "old", validation: .none))
        #expect(unfollowed.statusCode == 302)
    }

    @Test("NAL's transport follows every hop of a chain by its own policy, and a file uploaded over 307s arrives whole")
    func redirectChainWithNAL() async throws {
        let server = StubServer()
        let base = try #require(URL(string: "\(Self.base)/v1"))
        server.stub(.path("/v1/first"), response: .redirect(to: base.appendingPathComponent("second"), status: 307))
        server.stub(.path("/v1/second"), response: .redirect(to: base.appendingPathComponent("end"), status: 307))
        server.stub(.path("/v1/end")) { request in
            .string("\(request.httpMethod ?? "") \(String(decoding: request.httpBody ?? Data(), as: UTF8.self))")
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nal-chain-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("kept".utf8).write(to: file)
        let hops = Locked(0)
        let transport = URLSessionTransport(
            configuration: server.sessionConfiguration,
            redirectPolicy: .custom { _, proposed in
                hops.withLock { $0 += 1 }
                return proposed
            })
        let response = try await Client<TestEndpoint>(transport: transport).request(
            TestEndpoint(baseURL: base, path: "first", method: .post, requestType: .uploadFile(file)))
        #expect(response.string() == "POST kept")
        #expect(hops.withLock { $0 } == 2, "a hop was followed in the stub layer, not by NAL's policy")
        #expect(server.requests.map(\.url.path) == ["/v1/first", "/v1/second", "/v1/end"])

        // A 303 turns the POST into a GET, which carries no body: the uploaded file is not read for it.
        server.stub(.path("/v1/see"), response: .redirect(to: base.appendingPathComponent("end"), status: 303))
        let seeOther = try await Client<TestEndpoint>(transport: transport).request(
            TestEndpoint(baseURL: base, path: "see", method: .post, requestType: .uploadFile(file)))
        #expect(seeOther.string() == "GET ")
    }

    @Test("the journal records method, URL, headers and bodies, uploads too; waiting and verification")
    func journal() async throws {
        let server = StubServer()
        server.stub(.pathPrefix("/"), response: .string("ok"))
        let unused = server.stub(.path("/never"), response: .string("never"))
        let client = server.client()
        let base = try #require(URL(string: Self.base))
        _ = try await client.request(
            TestEndpoint(baseURL: base, path: "upload", method: .post, requestType: .uploadData(Data("bytes up".utf8))))
        _ = try await client.request(TestEndpoint(baseURL: base, path: "items", headers: ["X-Trace": "7"]))
        #expect(server.requests.count == 2)
        #expect(server.requests.first?.body == Data("bytes up".utf8))
        #expect(server.requests(matching: .header("X-Trace", "7")).map(\.url.path) == ["/items"])
        async let awaited = server.waitForRequest(matching: .path("/later"), timeout: .seconds(5))
        try await Task.sleep(for: .milliseconds(50))
        _ = try await client.request(TestEndpoint(baseURL: base, path: "later"))
        #expect(try await awaited.url.path == "/later")
        await #expect(throws: StubServerError.self) {
            try await server.waitForRequest(matching: .path("/nobody"), timeout: .milliseconds(50))
        }
        do {
            try server.verifyAllStubsUsed()
            Issue.record("an unused stub passed")
        } catch {
            #expect("\(error)" == "1 stub was never used: path /never")
        }
        server.remove(unused)
        try server.verifyAllStubsUsed()
    }

    @Test("a stub's own Content-Length is kept: a HEAD answer states the size of a body it does not send")
    func ownContentLength() async throws {
        let server = StubServer()
        server.stub(.method(.head) && .path("/big.iso"), response: StubResponse(headers: ["Content-Length": "1234567"]))
        server.stub(.method(.get) && .path("/big.iso"), response: .string("not the file"))
        let base = try #require(URL(string: Self.base))
        let head = try await server.client().request(TestEndpoint(baseURL: base, path: "big.iso", method: .head))
        #expect(head.statusCode == 200 && head.data.isEmpty)
        #expect(head.headers["Content-Length"] == "1234567")
        // Without one, the length is the body's.
        let get = try await server.client().request(TestEndpoint(baseURL: base, path: "big.iso"))
        #expect(get.string() == "not the file" && get.headers["Content-Length"] == "12")
    }

    @Test("faults through NAL's transport: delay, bandwidth, truncation, network errors")
    func faultsThroughNAL() async throws {
        let server = StubServer()
        server.stub(.path("/slow"), response: .string("late").delayed(by: .milliseconds(300)))
        server.stub(
            .path("/throttled"), response: StubResponse(body: Data(count: 100_000)).throttled(bytesPerSecond: 200_000))
        server.stub(.path("/cut"), response: StubResponse(body: Data(count: 100_000)).truncated(after: 10_000))
        server.stub(.path("/down"), response: .networkError(.cannotFindHost))
        let client = server.client()
        let base = try #require(URL(string: Self.base))
        let clock = ContinuousClock()
        var start = clock.now
        #expect(try await client.request(TestEndpoint(baseURL: base, path: "slow")).string() == "late")
        #expect(clock.now - start >= .milliseconds(300))
        start = clock.now
        #expect(try await client.request(TestEndpoint(baseURL: base, path: "throttled")).data.count == 100_000)
        let throttled = clock.now - start
        // At least what the bandwidth allows. No upper bound: a loaded CI machine took over 5 s (speed belongs in
        // benchmarks, not in timed unit tests).
        #expect(throttled >= .milliseconds(450), "took \(throttled)")
        for (path, code) in [("cut", URLError.Code.networkConnectionLost), ("down", .cannotFindHost)] {
            do {
                _ = try await client.request(TestEndpoint(baseURL: base, path: path))
                Issue.record("\(path) succeeded")
            } catch {
                guard case .transport(let urlError) = error else { throw error }
                #expect(urlError.code == code)
            }
        }
    }

    @Test("a completion-handler client gets a file body of many chunks whole (Linux keeps only the last didLoad)")
    func wholeBodiesForPlainClients() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nal-stub-\(UUID().uuidString)")
        let bytes = Data((0..<200_000).map { UInt8($0 % 251) })
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let server = StubServer()
        server.stub(.path("/file"), response: .file(file))
        let (data, _) = try await URLSession(configuration: server.sessionConfiguration).data(
            from: try #require(URL(string: "\(Self.base)/file")))
        #expect(data == bytes)
        let viaNAL = try await server.client().request(
            TestEndpoint(baseURL: try #require(URL(string: Self.base)), path: "file"))
        #expect(viaNAL.data == bytes)
    }

    @Test("isolation: two servers stub the same URL; 1,000 concurrent requests through each never cross")
    func isolation() async throws {
        let first = StubServer()
        let second = StubServer()
        first.stub(.path("/same"), response: .string("first"))
        second.stub(.path("/same"), response: .string("second"))
        let endpoint = TestEndpoint(baseURL: try #require(URL(string: Self.base)), path: "same")
        let clients = [("first", first.client()), ("second", second.client())]
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for (expected, client) in clients {
                for _ in 0..<1000 {
                    group.addTask { try await client.request(endpoint).string() == expected ? 0 : 1 }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
        #expect(first.requests.count == 1000)
        #expect(second.requests.count == 1000)
    }

    @Test("a session whose StubServer was released fails its requests instead of reaching the network")
    func releasedServer() async throws {
        var server: StubServer? = StubServer()
        let configuration = try #require(server?.sessionConfiguration)
        server = nil
        let session = URLSession(configuration: configuration)
        do {
            // A closed local port: reaching the network would fail with cannotConnectToHost instead.
            _ = try await session.data(from: try #require(URL(string: "http://127.0.0.1:1/x")))
            Issue.record("the request succeeded")
        } catch let error as URLError {
            #expect(error.code == .resourceUnavailable)
            #expect(error.localizedDescription.contains("the StubServer of this session was released"))
        }
        _ = server
    }

    @Test(
        "pass-through sends unmatched requests to the network",
        .enabled(if: FaultServer.url != nil, FaultServer.skipReason))
    func passThrough() async throws {
        let url = try #require(FaultServer.url)
        let server = StubServer(unmatched: .passThrough)
        server.stub(.path("/stubbed"), response: .string("stub"))
        let client = PlainClient(server)
        #expect(try await client.fetch(url.absoluteString + "/stubbed").body == "stub")
        #expect(try await client.fetch(url.absoluteString + "/fast").body == "fast")
    }

    /// Runs only in the child process that `installReachesSharedSessionInAFreshProcess` starts.
    @Test(
        "child: install() before first use stubs URLSession.shared",
        .enabled(
            if: ProcessInfo.processInfo.environment["NAL_FRESH_PROCESS"] == "shared-session",
            "runs only in the child process that installReachesSharedSessionInAFreshProcess starts"))
    func sharedSessionChild() async throws {
        StubServer.shared.install()
        StubServer.shared.stub(.host("fresh.test"), response: .string("stubbed shared"))
        let (data, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://fresh.test/x")))
        #expect(String(decoding: data, as: UTF8.self) == "stubbed shared")
    }

    @Test("Mocker's mode: install() stubs URLSession.shared when it runs before the first use, in a fresh process")
    func installReachesSharedSessionInAFreshProcess() async throws {
        guard ProcessInfo.processInfo.environment["NAL_FRESH_PROCESS"] == nil else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--testing-library", "swift-testing", "--filter", "sharedSessionChild"]
        var environment = ProcessInfo.processInfo.environment
        environment["NAL_FRESH_PROCESS"] = "shared-session"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let data = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
        #expect(process.terminationStatus == 0, "\(text.suffix(2000))")
        #expect(text.contains("install() before first use stubs URLSession.shared\" passed"))
    }
}
