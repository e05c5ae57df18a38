import Foundation
import NALCore
import NALLogging
import NALStubbing
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `StubServer.listen`: stubs on a real socket, called through the transport under test (scripts/test.sh runs this
/// suite over URLSessionTransport and CurlTransport), so that the real transport meets the stubs.
@Suite("StubServer on a socket: stubs for any client, through the transport under test")
struct StubListenerTests {
    let client = Client<TestEndpoint>(transport: TestTransports.make())

    func endpoint(
        _ listener: StubListener, _ path: String, method: HTTPMethod = .get, body: Data? = nil,
        headers: [String: String]? = nil
    ) -> TestEndpoint {
        TestEndpoint(
            baseURL: listener.baseURL, path: path, method: method,
            requestType: body.map { .data($0) } ?? .plain, headers: headers, validation: .none)
    }

    @Test("the article's example: a stub on a free port, called by a plain URLSession")
    func articleExample() async throws {
        // Docs: begin stubs-over-a-socket
        let server = StubServer()
        server.stub(.method(.get) && .path("/v1/hello"), response: .string("hi"))
        let listener = try await server.listen(port: 0)
        // listener.baseURL is http://127.0.0.1:PORT: any HTTP client in any process may call
        // it.
        let (data, _) = try await URLSession(configuration: .ephemeral).data(
            from: listener.baseURL.appendingPathComponent("v1/hello"))
        #expect(String(decoding: data, as: UTF8.self) == "hi")
        await listener.stop()
        // Docs: end stubs-over-a-socket
    }

    @Test("a stub answers on 127.0.0.1 at a free port, with its status, headers and body; the journal has the call")
    func answers() async throws {
        let server = StubServer()
        // Framing headers are the listener's, and a value that would write a second header is left out.
        server.stub(
            (.method(.get) || .method(.head)) && .path("/v1/hello"),
            response: StubResponse(
                status: 201,
                headers: [
                    "X-Stub": "yes", "Content-Length": "999", "Transfer-Encoding": "chunked",
                    "X-Bad": "a\r\nX-Injected: 1",
                ], body: Data("hi".utf8)))
        let listener = try await server.listen(port: 0)
        defer { Task { await listener.stop() } }
        #expect(listener.baseURL.absoluteString.hasPrefix("http://127.0.0.1:"))
        #expect(listener.port > 0)
        let response = try await client.request(endpoint(listener, "v1/hello"))
        #expect(response.statusCode == 201)
        #expect(response.string() == "hi")
        #expect(response.headers["X-Stub"] == "yes")
        #expect(response.headers["Content-Length"] == "2")
        #expect(response.headers["X-Injected"] == nil && response.headers["X-Bad"] == nil)
        // A HEAD answer states the length and sends no body: the next call on the connection reads its own answer.
        let head = try await client.request(endpoint(listener, "v1/hello", method: .head))
        #expect(head.statusCode == 201 && head.data.isEmpty)
        #expect(try await client.request(endpoint(listener, "v1/hello")).string() == "hi")
        let journaled = try #require(server.requests.last)
        #expect(journaled.method == "GET" && journaled.url.path == "/v1/hello")
    }

    @Test("stubs written for another origin answer as that origin, or by path and query without one")
    func origins() async throws {
        let server = StubServer()
        server.stub(.url(URL(string: "https://api.github.com/users/octocat")!), response: .string("the cat"))
        server.stub(.host("other.example") && .path("/users/octocat"), response: .string("another"))
        let github = try await server.listen(port: 0, as: URL(string: "https://api.github.com")!)
        let anyOrigin = try await server.listen(port: 0)
        defer {
            Task {
                await github.stop()
                await anyOrigin.stop()
            }
        }
        #expect(try await client.request(endpoint(github, "users/octocat")).string() == "the cat")
        #expect(server.requests.last?.url.absoluteString == "https://api.github.com/users/octocat")
        // A stub that matches on the path alone sees the request as sent to the origin answered as.
        server.stub(.path("/only-path"), response: .string("path"))
        #expect(try await client.request(endpoint(github, "only-path")).string() == "path")
        #expect(server.requests.last?.url.absoluteString == "https://api.github.com/only-path")
        // Without an origin, every origin the stubs name is tried, and the most specific stub wins: the exact URL.
        #expect(try await client.request(endpoint(anyOrigin, "users/octocat")).string() == "the cat")
        server.stub(.url(URL(string: "http://other.example/users/octocat")!), response: .string("newer"))
        #expect(try await client.request(endpoint(anyOrigin, "users/octocat")).string() == "newer")
        for origin in ["https://api.github.com/v3", "https://user:pw@api.github.com"] {
            await #expect(throws: StubListenerError.self) {
                _ = try await server.listen(port: 0, as: URL(string: origin)!)
            }
        }
    }

    @Test("a redirect to the origin answered as stays on the listener, and import-har's files answer without as:")
    func redirectsAndImportedFixtures() async throws {
        let server = StubServer()
        server.stub(
            .url(URL(string: "https://api.example.com/old")!),
            response: .redirect(to: URL(string: "https://api.example.com/new?x=1")!))
        server.stub(.url(URL(string: "https://api.example.com/new?x=1")!), response: .string("new"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("listener-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // What `nal-cli stubs import-har` writes: a URL pattern that spells out its origin.
        try Data("GET\n^https://www\\.example\\.org/imported\\?page=2$\n200\n\nimported".utf8)
            .write(to: directory.appendingPathComponent("imported.tail"))
        try server.loadTails(from: directory)
        for origin in [URL(string: "https://api.example.com")!, nil] {
            let listener = try await server.listen(port: 0, as: origin)
            defer { Task { await listener.stop() } }
            let response = try await client.request(endpoint(listener, "old"))
            #expect(response.string() == "new", "as: \(String(describing: origin))")
            #expect(response.httpResponse.url?.host == "127.0.0.1", "the redirect left the listener")
        }
        let plain = try await server.listen(port: 0)
        defer { Task { await plain.stop() } }
        var imported = endpoint(plain, "imported")
        imported.requestType = .parameters(["page": 2], encoding: URLEncoding.queryString)
        #expect(try await client.request(imported).string() == "imported")
    }

    @Test("answers served at once, kept or not, are journaled with their answer and run onDelivered each time")
    func answersAtOnceAreJournaled() async throws {
        let server = StubServer()
        let delivered = Locked(0)
        server.stub(
            .path("/counted"),
            response: StubResponse.string("counted").whenDelivered { _ in delivered.withLock { $0 += 1 } })
        let listener = try await server.listen(port: 0)
        defer { Task { await listener.stop() } }
        for _ in 0..<3 {
            #expect(try await client.request(endpoint(listener, "counted")).string() == "counted")
        }
        #expect(delivered.withLock { $0 } == 3)
        let har = try #require(try JSONSerialization.jsonObject(with: server.exportHAR()) as? [String: Any])
        let entries = try #require((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries.count == 3)
        for entry in entries {
            #expect((entry["response"] as? [String: Any])?["status"] as? Int == 200, "\(entry)")
        }
    }

    @Test("an unmatched request gets a 404 whose body is the near-miss report, secrets redacted")
    func unmatched() async throws {
        let server = StubServer()
        server.stub(.path("/other") && .query(["access_token": "SECRET"]), response: .string("x"))
        let listener = try await server.listen(port: 0)
        defer { Task { await listener.stop() } }
        var request = endpoint(listener, "x")
        request.requestType = .parameters(["access_token": "SECRET"], encoding: URLEncoding.queryString)
        let response = try await client.request(request)
        #expect(response.statusCode == 404)
        let report = response.string() ?? ""
        #expect(report.contains("No stub matches") && report.contains("Closest stubs"), "\(report)")
        #expect(!report.contains("SECRET"), "\(report)")
    }

    @Test("delays, bandwidth, a stream of events, a sequence, a redirect the client follows, and waitForRequest")
    func behaviours() async throws {
        let server = StubServer()
        server.stub(.path("/slow"), response: StubResponse.string("late").delayed(by: .milliseconds(300)))
        server.stub(
            .path("/throttled"), response: StubResponse(body: Data(count: 20_000)).throttled(bytesPerSecond: 40_000))
        server.stub(.path("/moved"), response: .redirect(to: try #require(URL(string: "/target"))))
        server.stub(.path("/target"), response: .string("arrived"))
        server.stub(.path("/seq"), responses: [.string("one"), .string("two")])
        server.stub(
            .path("/events"),
            response: .events([ServerSentEvent(data: "a"), ServerSentEvent(data: "b")], interval: .milliseconds(50)))
        let listener = try await server.listen(port: 0)
        defer { Task { await listener.stop() } }
        let clock = ContinuousClock()
        var start = clock.now
        #expect(try await client.request(endpoint(listener, "slow")).string() == "late")
        #expect(clock.now - start >= .milliseconds(300))
        start = clock.now
        #expect(try await client.request(endpoint(listener, "throttled")).data.count == 20_000)
        #expect(clock.now - start >= .milliseconds(400))
        let moved = try await client.request(endpoint(listener, "moved"))
        #expect(moved.string() == "arrived")
        #expect(try await client.request(endpoint(listener, "seq")).string() == "one")
        #expect(try await client.request(endpoint(listener, "seq")).string() == "two")
        // A sequence that has served all its responses matches no more.
        #expect(try await client.request(endpoint(listener, "seq")).statusCode == 404)
        #expect(try await client.request(endpoint(listener, "events")).string() == "data: a\n\ndata: b\n\n")
        async let waited = server.waitForRequest(matching: .path("/later"), timeout: .seconds(5))
        server.stub(.path("/later"), response: .string("ok"))
        _ = try await client.request(endpoint(listener, "later", method: .post, body: Data("{\"a\":1}".utf8)))
        let later = try await waited
        #expect(later.body == Data("{\"a\":1}".utf8))
    }

    @Test("a network error closes before answering and a truncated body closes part way: the client sees both")
    func faults() async throws {
        let server = StubServer()
        server.stub(.path("/down"), response: .networkError(.networkConnectionLost))
        server.stub(.path("/cut"), response: StubResponse(body: Data(count: 100_000)).truncated(after: 1_000))
        let listener = try await server.listen(port: 0)
        defer { Task { await listener.stop() } }
        for path in ["down", "cut"] {
            let clock = ContinuousClock()
            let start = clock.now
            defer {
                // The connection ends at once: a client left waiting for the rest would fail only at its idle
                // timeout (60 s).
                #expect(clock.now - start < Timing.bound(.seconds(5)), "\(path) took \(clock.now - start)")
            }
            do {
                let response = try await client.request(endpoint(listener, path))
                Issue.record("\(path) came back as \(response.statusCode) with \(response.data.count) bytes")
            } catch {
                guard case .transport = error else {
                    Issue.record("\(path): expected a transport error, got \(error)")
                    continue
                }
            }
        }
        // The listener serves on after both.
        server.stub(.path("/fine"), response: .string("fine"))
        #expect(try await client.request(endpoint(listener, "fine")).string() == "fine")
    }

    @Test(
        "a file body plays whole; an unmatched request passes through to the origin answered as, and is recorded",
        .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
    func fileBodyAndRecording() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("body.bin")
        let content = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 31 + $0 / 977) })
        try content.write(to: file)
        let cassette = directory.appendingPathComponent("passed.har")
        let server = StubServer(unmatched: .passThrough, recordingTo: cassette)
        server.stub(.path("/file"), response: .file(file))
        let listener = try await server.listen(port: 0, as: HTTPBin.url)
        defer { Task { await listener.stop() } }
        let played = try await client.request(endpoint(listener, "file"))
        let whole = played.data == content
        #expect(whole, "\(played.data.count) bytes of 300,000")
        let passed = try await client.request(endpoint(listener, "get"))
        #expect(passed.statusCode == 200 && (passed.string() ?? "").contains("\"url\""), "\(passed.statusCode)")
        let recorded = try String(contentsOf: cassette, encoding: .utf8)
        #expect(recorded.contains("/get") && !recorded.contains("/file"))
    }

    @Test("stop() closes the socket: calls after it fail, and the port can be listened on again")
    func stop() async throws {
        let server = StubServer()
        server.stub(.any, response: .string("ok"))
        let listener = try await server.listen(port: 0)
        #expect(try await client.request(endpoint(listener, "x")).string() == "ok")
        await listener.stop()
        await #expect(throws: NALError.self) { _ = try await client.request(endpoint(listener, "x")) }
        let again = try await server.listen(port: listener.port)
        #expect(again.port == listener.port)
        do {
            _ = try await server.listen(port: again.port)
            Issue.record("a second listener took a port in use")
        } catch {
            #expect(error == .addressInUse(host: "127.0.0.1", port: again.port))
            #expect("\(error)".contains("the port is in use"))
        }
        await again.stop()
    }
}
