import Foundation
import NALCore
import NALLogging
import NALStubbing
import NALTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that must not be reached: replay never touches the network.
struct OfflineTransport: Transport {
    let calls = Locked<Int>(0)
    func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
        calls.withLock { $0 += 1 }
        throw .transport(URLError(.notConnectedToInternet))
    }
}

@Suite("Record and replay against httpbin", .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
struct RecordReplayTests {
    struct Seen: Equatable {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    /// What a call returned, validation failures included (a 404 is part of the recording).
    static func call(_ client: Client<TestEndpoint>, _ endpoint: TestEndpoint) async throws -> Seen {
        let response: Response
        do {
            response = try await client.request(endpoint)
        } catch {
            response = try #require(error.response, "\(error)")
        }
        var headers: [String: String] = [:]
        for header in response.headers where !Self.varying.contains(header.name.lowercased()) {
            headers[header.name.lowercased()] = header.value
        }
        return Seen(status: response.statusCode, headers: headers, body: response.data)
    }

    /// Headers that describe the connection, not the answer; a replay leaves them to NAL.
    static let varying: Set<String> = ["content-length", "connection", "keep-alive", "transfer-encoding"]

    static let endpoints: [TestEndpoint] = [
        HTTPBin.endpoint(
            "get", requestType: .parameters(["q": "swift nio", "page": 2], encoding: URLEncoding.default)),
        HTTPBin.endpoint(
            "post", method: .post,
            requestType: .parameters(["name": "Ada", "langs": ["swift", "c"]], encoding: JSONEncoding.default)),
        HTTPBin.endpoint(
            "post", method: .post, requestType: .parameters(["name": "Ada", "n": 1], encoding: URLEncoding.httpBody)),
        HTTPBin.endpoint("put", method: .put, requestType: .uploadData(Data([0, 1, 2, 0xFF, 0xFE]))),
        HTTPBin.endpoint("status/404"),
        HTTPBin.endpoint(
            "redirect-to", requestType: .parameters(["url": "/get?after=redirect"], encoding: URLEncoding.default)),
    ]

    @Test("record GET, JSON, form, binary, a 404 and a redirect; replay offline gives the same answers")
    func roundTrip() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appendingPathComponent("httpbin.har")

        // Ephemeral: the shared cookie store would carry cookies from other tests into these requests.
        let recorder = RecordingTransport(
            cassette: cassette, mode: .once, wrapping: URLSessionTransport(configuration: .ephemeral))
        #expect(recorder.mode == .recordAll)
        var recorded: [Seen] = []
        for endpoint in Self.endpoints {
            recorded.append(try await Self.call(Client(transport: recorder), endpoint))
        }
        #expect(recorded.map(\.status) == [200, 200, 200, 200, 404, 200])

        let offline = OfflineTransport()
        let player = RecordingTransport(cassette: cassette, mode: .once, wrapping: offline)
        #expect(player.mode == .replayOnly)
        var replayed: [Seen] = []
        for endpoint in Self.endpoints {
            replayed.append(try await Self.call(Client(transport: player), endpoint))
        }
        #expect(offline.calls.withLock { $0 } == 0)
        for (index, (live, again)) in zip(recorded, replayed).enumerated() {
            #expect(live == again, "request \(index) replayed differently")
        }
    }

    @Test("no secret reaches the cassette, wherever the server echoes it; replay still matches redacted requests")
    func secrets() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appendingPathComponent("secrets.har")
        let secrets = ["Bearer-t0k3n-9f8e", "qu3ry-s3cret-77", "hunter2-pass", "c00kie-value-1"]
        let endpoints = [
            HTTPBin.endpoint(
                "anything", headers: ["Authorization": "Bearer Bearer-t0k3n-9f8e", "Cookie": "sid=c00kie-value-1"]),
            HTTPBin.endpoint(
                "get",
                requestType: .parameters(["access_token": "qu3ry-s3cret-77", "page": 1], encoding: URLEncoding.default)),
            HTTPBin.endpoint(
                "post", method: .post,
                requestType: .parameters(["user": "ada", "password": "hunter2-pass"], encoding: JSONEncoding.default)),
            HTTPBin.endpoint(
                "post", method: .post,
                requestType: .parameters(["user": "ada", "password": "hunter2-pass"], encoding: URLEncoding.httpBody)),
            HTTPBin.endpoint(
                "cookies/set", requestType: .parameters(["session": "c00kie-value-1"], encoding: URLEncoding.default)),
        ]
        let recorder = RecordingTransport(
            cassette: cassette, mode: .recordAll, wrapping: URLSessionTransport(configuration: .ephemeral))
        for endpoint in endpoints { _ = try await Self.call(Client(transport: recorder), endpoint) }

        let text = try String(contentsOf: cassette, encoding: .utf8)
        for secret in secrets { #expect(!text.contains(secret), "\(secret) reached the cassette") }
        #expect(text.contains("<redacted>"))

        let player = RecordingTransport(cassette: cassette, mode: .replayOnly, wrapping: OfflineTransport())
        for endpoint in endpoints {
            let status = try await Self.call(Client(transport: player), endpoint).status
            #expect(status == 200 || status == 302)
        }
    }
}

@Suite("RecordingTransport")
struct RecordingTransportTests {
    @Test("concurrent requests all land in the cassette, which stays valid HAR; no temporary file is left")
    func concurrentRecording() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appendingPathComponent("many.har")
        let recorder = RecordingTransport(
            cassette: cassette, mode: .recordAll,
            wrapping: MemoryTransport(body: Data("ok".utf8), delay: .milliseconds(10)))
        let client = Client<TestEndpoint>(transport: recorder)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask { _ = try await client.request(TestEndpoint(path: "item/\(index)")) }
            }
            try await group.waitForAll()
        }
        try HARExportTests.validate(try Data(contentsOf: cassette))
        let document = try JSONSerialization.jsonObject(with: try Data(contentsOf: cassette)) as? [String: Any]
        let entries = (document?["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        let paths = Set(entries.compactMap { ($0["request"] as? [String: Any])?["url"] as? String })
        #expect(paths.count == 40)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["many.har"])
    }

    @Test("replayOnly: an unmatched request is an error naming the closest entry, and nothing aborts")
    func unmatchedInReplay() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appendingPathComponent("one.har")
        let recorder = RecordingTransport(
            cassette: cassette, mode: .recordAll, wrapping: MemoryTransport(body: Data("ok".utf8)))
        func user(_ query: KeyValuePairs<String, ParameterValue>) -> TestEndpoint {
            TestEndpoint(
                path: "users/1",
                requestType: .parameters(Dictionary(uniqueKeysWithValues: Array(query)), encoding: URLEncoding.default))
        }
        _ = try await Client<TestEndpoint>(transport: recorder).request(user(["fields": "a", "b": "2"]))
        _ = try await Client<TestEndpoint>(transport: recorder).request(TestEndpoint(path: "other", method: .post))

        let player = RecordingTransport(cassette: cassette, mode: .replayOnly, wrapping: OfflineTransport())
        let client = Client<TestEndpoint>(transport: player)
        #expect(try await client.request(user(["b": "2", "fields": "a"])).string() == "ok")
        do {
            _ = try await client.request(user(["fields": "b"]))
            Issue.record("an unrecorded request replayed")
        } catch {
            guard case .transport(let urlError) = error else {
                Issue.record("expected a transport error, got \(error)")
                return
            }
            #expect(urlError.code == .resourceUnavailable)
            #expect(
                urlError.localizedDescription
                    == "no recorded entry in one.har matches GET https://api.example.com/v1/users/1?fields=b; "
                    + "the closest is GET https://api.example.com/v1/users/1?b=2&fields=a (the query differs)")
        }
    }

    @Test("matching: by default identical method and URL replay in order; matchesBody and headers tell them apart")
    func matchingRules() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appendingPathComponent("search.har")
        func search(_ query: String, tenant: String) -> TestEndpoint {
            TestEndpoint(
                path: "search", method: .post,
                requestType: .parameters(["q": .string(query)], encoding: JSONEncoding.default),
                headers: ["X-Tenant": tenant])
        }
        /// Answers with the request's body and tenant, so each recorded answer is recognisable.
        struct EchoTransport: Transport {
            func send(_ request: URLRequest, context: TransportContext) async throws(NALError) -> Response {
                let text =
                    String(decoding: request.httpBody ?? Data(), as: UTF8.self)
                    + " for " + (request.value(forHTTPHeaderField: "X-Tenant") ?? "")
                return try await MemoryTransport(body: Data(text.utf8)).send(request, context: context)
            }
        }
        let recorder = RecordingTransport(cassette: cassette, mode: .recordAll, wrapping: EchoTransport())
        let live = Client<TestEndpoint>(transport: recorder)
        for (query, tenant) in [("swift", "a"), ("rust", "a"), ("swift", "b")] {
            _ = try await live.request(search(query, tenant: tenant))
        }

        let byURL = Client<TestEndpoint>(
            transport: RecordingTransport(cassette: cassette, mode: .replayOnly, wrapping: OfflineTransport()))
        #expect(try await byURL.request(search("anything", tenant: "z")).string() == #"{"q":"swift"} for a"#)
        #expect(try await byURL.request(search("anything", tenant: "z")).string() == #"{"q":"rust"} for a"#)

        let strict = Client<TestEndpoint>(
            transport: RecordingTransport(
                cassette: cassette, mode: .replayOnly,
                matching: RecordingMatch(matchesBody: true, headers: ["x-tenant"]),
                wrapping: OfflineTransport()))
        #expect(try await strict.request(search("swift", tenant: "b")).string() == #"{"q":"swift"} for b"#)
        #expect(try await strict.request(search("rust", tenant: "a")).string() == #"{"q":"rust"} for a"#)
        let unmatched = await #expect(throws: NALError.self) { try await strict.request(search("rust", tenant: "b")) }
        let said = unmatched.map { "\($0)" } ?? ""
        #expect(said.contains("(the headers differ)"), "\(said)")
    }

    @Test("matching on a secret header replays: the live value is redacted as the cassette stores it")
    func matchingSecretHeader() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appendingPathComponent("auth.har")
        let endpoint = TestEndpoint(path: "me", headers: ["Authorization": "Bearer tok-5f3a9c2e71"])
        let recorder = RecordingTransport(
            cassette: cassette, mode: .recordAll, wrapping: MemoryTransport(body: Data("me".utf8)))
        _ = try await Client<TestEndpoint>(transport: recorder).request(endpoint)
        #expect(!(try String(contentsOf: cassette, encoding: .utf8)).contains("tok-5f3a9c2e71"))

        let player = RecordingTransport(
            cassette: cassette, mode: .replayOnly, matching: RecordingMatch(headers: ["Authorization"]),
            wrapping: OfflineTransport())
        #expect(try await Client<TestEndpoint>(transport: player).request(endpoint).string() == "me")
    }

    @Test("recordNew into a cassette from an earlier run keeps its entries and appends the new ones after them")
    func recordNewKeepsLoadedEntries() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let earlier = directory.appendingPathComponent("earlier.har")
        let recorder = RecordingTransport(
            cassette: earlier, mode: .recordAll, wrapping: MemoryTransport(body: Data("old".utf8)))
        _ = try await Client<TestEndpoint>(transport: recorder).request(TestEndpoint(path: "a"))
        // A copy under another name: no recorder of this process writes it yet, as in a new test run.
        let cassette = directory.appendingPathComponent("grown.har")
        try FileManager.default.copyItem(at: earlier, to: cassette)

        let network = MemoryTransport(body: Data("new".utf8))
        let client = Client<TestEndpoint>(
            transport: RecordingTransport(cassette: cassette, mode: .recordNew, wrapping: network))
        #expect(try await client.request(TestEndpoint(path: "a")).string() == "old")
        #expect(try await client.request(TestEndpoint(path: "c")).string() == "new")
        #expect(network.requests.map { $0.url?.path } == ["/v1/c"])
        let data = try Data(contentsOf: cassette)
        try HARExportTests.validate(data)
        let entries =
            ((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["log"] as? [String: Any])?[
                "entries"] as? [[String: Any]] ?? []
        #expect(
            entries.compactMap { ($0["request"] as? [String: Any])?["url"] as? String } == [
                "https://api.example.com/v1/a", "https://api.example.com/v1/c",
            ])
    }

    @Test("recordNew replays what it has and records the rest; a broken cassette fails every call with why")
    func recordNewAndBrokenCassette() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appendingPathComponent("grow.har")
        let network = MemoryTransport(body: Data("live".utf8))
        let recorder = RecordingTransport(cassette: cassette, mode: .recordNew, wrapping: network)
        let client = Client<TestEndpoint>(transport: recorder)
        _ = try await client.request(TestEndpoint(path: "a"))
        _ = try await client.request(TestEndpoint(path: "a"))
        _ = try await client.request(TestEndpoint(path: "b"))
        #expect(network.requests.count == 2, "the second /a replayed")

        let again = RecordingTransport(cassette: cassette, mode: .recordNew, wrapping: network)
        _ = try await Client<TestEndpoint>(transport: again).request(TestEndpoint(path: "c"))
        let data = try Data(contentsOf: cassette)
        let entries =
            ((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["log"] as? [String: Any])?[
                "entries"] as? [Any]
        #expect(entries?.count == 3)

        let broken = directory.appendingPathComponent("broken.har")
        try Data("{\"log\": {\"entries\": [}".utf8).write(to: broken)
        let player = RecordingTransport(cassette: broken, mode: .replayOnly)
        do {
            _ = try await Client<TestEndpoint>(transport: player).request(TestEndpoint(path: "a"))
            Issue.record("a broken cassette replayed")
        } catch {
            #expect("\(error)".contains("broken.har:1:22: not valid JSON: unexpected character '}'"), "\(error)")
        }
    }

    @Test(
        "a StubServer in pass-through mode records what went to the network",
        .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
    func stubServerRecords() async throws {
        let directory = try TransferFiles.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appendingPathComponent("passed.har")
        let server = StubServer(unmatched: .passThrough, recordingTo: cassette)
        server.stub(.path("/stubbed"), response: .string("stub"))
        let session = URLSession(configuration: server.sessionConfiguration)
        let base = try #require(HTTPBin.url)
        _ = try await session.data(from: base.appendingPathComponent("stubbed"))
        _ = try await session.data(from: base.appendingPathComponent("get"))
        let text = try String(contentsOf: cassette, encoding: .utf8)
        #expect(text.contains("/get") && !text.contains("/stubbed"))
        try HARExportTests.validate(try Data(contentsOf: cassette))
    }
}
